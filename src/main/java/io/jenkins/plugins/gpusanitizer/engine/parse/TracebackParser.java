package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a PyTorch job's error output (stderr, or stdout+stderr): classifies the CUDA failure and
 * finds the innermost frame of the Python traceback that is the user's own code. Tracebacks that
 * Python prints under "Exception ignored in" (destructors failing after the real error, as cupy's
 * module unload does) are skipped. Streams the file; keeps only the chosen tracebacks.
 *
 * <p>Distributed jobs: lines carrying a rank prefix ({@code [rank0]: }, torchrun's
 * {@code [default0]:} template) are read per rank; the earliest failing rank's traceback is the
 * failure. The launcher's own traceback (torchrun's {@code ChildFailedError} with its "Root Cause
 * (first observed failure)" table, {@code mp.spawn}'s {@code ProcessRaisedException}) is context:
 * its rank and the tracebacks in its table are used, its frames are not. The traceback spawn prints
 * after "-- Process N terminated with the following error:" is rank N's.
 *
 * <p>CUDA error messages printed outside any traceback (a job that caught the error and printed it,
 * a C++ abort, NCCL's watchdog) are listed with their stream and line.
 */
public final class TracebackParser {
    private static final int MAX_FRAMES = 200;
    private static final int MAX_ASSERTIONS = 20;
    private static final int MAX_RANKS = 256;
    /** Distinct CUDA messages kept per phase. */
    public static final int MAX_MESSAGES = 10;

    private static final Pattern FRAME = Pattern.compile("^\\s*File \"(.+)\", line (\\d+), in (.+)$");
    private static final Pattern EXCEPTION =
            Pattern.compile("^([A-Za-z_][\\w.]*(?:Error|Exception|Exit|Interrupt|Warning)?): ?(.*)$");
    private static final Pattern ASSERTION = Pattern.compile(
            "^(\\S+):(\\d+): (.+?): block: \\[(\\d+),(\\d+),(\\d+)\\], thread: \\[(\\d+),(\\d+),(\\d+)\\] Assertion `(.*)` failed\\.?$");
    private static final Pattern OOM = Pattern.compile(
            "Tried to allocate ([\\d.]+ \\w+)\\. GPU ?(\\d*) has a total capac(?:i)?ty of ([\\d.]+ \\w+) of which ([\\d.]+ \\w+) is free\\..*?"
                    + "Of the allocated memory ([\\d.]+ \\w+) is allocated by PyTorch, and ([\\d.]+ \\w+) is reserved by PyTorch but unallocated");
    private static final Pattern CPP_WHAT = Pattern.compile("^\\s*what\\(\\):\\s+(.*)$");
    /** c10/glog's line header ({@code [W1203 08:15:20.816119564 CUDAEvent.h:57] }): its timestamp would defeat deduplication. */
    private static final Pattern LOG_HEADER =
            Pattern.compile("^\\[?[IWEF]\\d{3,4} \\d{2}:\\d{2}:\\d{2}\\.\\d+ [^\\]]*\\]\\s*");

    /**
     * A worker's line prefix: {@code [rank3]: } (PyTorch's distributed logging), {@code [default3]:}
     * (torchrun's {@code --log-line-prefix-template} default {@code [${role_name}${local_rank}]:}),
     * {@code [3]:} ({@code [${rank}]:}). The launcher's failure table has bare {@code [0]:} lines: a
     * prefix needs text after it.
     */
    private static final Pattern RANK_PREFIX = Pattern.compile("^\\[(?:[A-Za-z_][\\w-]*?)?(\\d{1,6})\\]:( ?)");

    private static final Pattern LAUNCHER_EXCEPTION =
            Pattern.compile("(?:^|\\.)(ChildFailedError|ProcessRaisedException|ProcessExitedException)$");
    private static final Pattern SPAWN_PROCESS =
            Pattern.compile("^-- Process (\\d+) terminated with the following error:");
    private static final Pattern SPAWN_EXITED = Pattern.compile("process (\\d+) terminated with (.+)$");
    private static final Pattern TABLE_ENTRY = Pattern.compile("^\\[(\\d+)\\]:\\s*$");
    private static final Pattern TABLE_RANK = Pattern.compile("^\\s+rank\\s*: (\\d+)(?: \\(local_rank: (\\d+)\\))?");
    private static final Pattern TABLE_EXIT = Pattern.compile("^\\s+exitcode\\s*: (-?\\d+)");
    private static final Pattern TABLE_TRACEBACK = Pattern.compile("^\\s+traceback\\s*: (.*)$");

    public CudaFailure parse(Path file) {
        return InputFiles.read(file, in -> parse(in, file.toString()));
    }

    public CudaFailure parse(InputStream in, String source) throws IOException {
        return parse(in, source, "stderr");
    }

    /** @param stream the stream's name for the messages found in it ({@code stderr}, {@code stdout}) */
    public CudaFailure parse(InputStream in, String source, String stream) throws IOException {
        // a log saved as UTF-16 (PowerShell's '>') reads the same as its UTF-8 copy
        BoundedLineReader lines = new BoundedLineReader(InputFiles.reader(in));
        Job job = new Job(stream);
        Untangler untangler = new Untangler(job::line);
        String line;
        while ((line = lines.readLine()) != null) {
            job.lineNo++;
            untangler.accept(line.indexOf('\u001b') >= 0 ? line.replaceAll("\u001b\\[[0-9;]*[A-Za-z]", "") : line);
        }
        untangler.flush();
        return job.result(source);
    }

    /** The CUDA messages a job printed on its stdout (a job that caught an error and printed it). */
    public List<CudaFailure.CudaMessage> messages(Path stdout) {
        return InputFiles.read(stdout, in -> parse(in, stdout.toString(), "stdout"))
                .messages();
    }

    /** A frame is the user's when it is a .py file outside installed packages, the standard library and generated code. */
    public static boolean isUserFile(String file) {
        if (file == null || file.startsWith("<") || !(file.endsWith(".py") || file.endsWith(".ipynb"))) {
            return false;
        }
        String f = file.indexOf('\\') >= 0 ? file.replace('\\', '/') : file;
        if (f.contains("/site-packages/") || f.contains("/dist-packages/") || isGeneratedFile(f)) {
            return false;
        }
        if (f.endsWith("/gpu_sanitize_probe.py")) {
            return false; // gpu-sanitize's own probe (engine/run/probe): a wrapper frame, never the user's line
        }
        int lib = f.indexOf("/lib/python");
        return lib < 0 || !(lib + 11 < f.length() && Character.isDigit(f.charAt(lib + 11)));
    }

    /** Inductor names its modules {@code c} + a 51-character hash ({@code yg/cygem6uw...py}). */
    private static final Pattern INDUCTOR_HASHED = Pattern.compile("(?:^|/)c[a-z0-9]{50,}\\.py$");

    /**
     * Source that torch.compile (Inductor) or Triton generated: their cache directories
     * ({@code /tmp/torchinductor_USER/}, {@code ~/.triton/cache/}) or Inductor's hashed module names
     * ({@code yg/cygem6uw...py}) wherever {@code TORCHINDUCTOR_CACHE_DIR} puts them (and in
     * compute-sanitizer's text output, which gives base names only).
     */
    public static boolean isGeneratedFile(String file) {
        if (file == null) {
            return false;
        }
        String f = file.indexOf('\\') >= 0 ? file.replace('\\', '/') : file;
        // the hashed name is 54 characters at least: most files are not searched
        return isCacheFile(f) || f.length() >= 54 && INDUCTOR_HASHED.matcher(f).find();
    }

    /** A file under an Inductor or Triton cache directory (what the runner may copy into the run directory). */
    public static boolean isCacheFile(String file) {
        if (file == null) {
            return false;
        }
        String f = file.indexOf('\\') >= 0 ? file.replace('\\', '/') : file;
        return f.contains("/torchinductor_")
                || f.contains("/.triton/cache/")
                || f.contains("/triton/cache/")
                || f.contains("/inductor_cache/")
                || f.contains("/torch_compile_debug/");
    }

    /** Dynamo's frame evaluation; compute-sanitizer's text output gives base names only. */
    private static boolean isDynamoFile(String file) {
        if (file == null) {
            return false;
        }
        String f = file.indexOf('\\') >= 0 ? file.replace('\\', '/') : file;
        return f.contains("/torch/_dynamo/") || f.equals("eval_frame.py");
    }

    /**
     * Python shows a frame that torch.compile replaced at its def line ({@code def forward(self, x):});
     * without the code, such a frame is recognised by what it called: Dynamo's frame evaluation
     * ({@code _fn in torch/_dynamo/eval_frame.py}), which runs the compiled graph.
     *
     * @param callee the next frame inwards, or null
     */
    public static boolean isCompiledFrame(SourceLocation frame, SourceLocation callee) {
        String code = frame.code();
        if (code != null) {
            return code.startsWith("def ") || code.startsWith("async def ");
        }
        return callee != null && isDynamoFile(callee.file());
    }

    /**
     * The innermost user frame of a traceback (outermost first), skipping generated code and frames
     * torch.compile replaced while an outer user frame (the call of the compiled module) exists.
     *
     * @return index into frames, or -1
     */
    static int userFrameIndex(List<SourceLocation> frames) {
        boolean skipped = false;
        for (int i = frames.size() - 1; i >= 0; i--) {
            SourceLocation f = frames.get(i);
            if (!isUserFile(f.file())) {
                continue;
            }
            // only the innermost: the frame that called the compiled module also calls into Dynamo
            if (!skipped
                    && isCompiledFrame(f, i + 1 < frames.size() ? frames.get(i + 1) : null)
                    && hasUserFrame(frames, i)) {
                skipped = true;
                continue;
            }
            return i;
        }
        return -1;
    }

    private static boolean hasUserFrame(List<SourceLocation> frames, int before) {
        for (int i = before - 1; i >= 0; i--) {
            if (isUserFile(frames.get(i).file())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Separates device-assert lines from traceback lines printed at the same moment. The GPU's assert
     * text reaches stderr from the driver while Python writes the traceback, and the two can come out
     * mixed: a whole assert line inside a traceback line (cutting it in two), or traceback lines inside
     * an assert line whose characters arrive one by one. An assert line has a fixed shape, so its
     * pieces are recognised, put back together and passed on as their own line; what the traceback
     * wrote is passed on without them.
     */
    static final class Untangler {
        private static final Pattern EMBEDDED_ASSERTION = Pattern.compile(
                "/\\S*?:\\d+: [^:`]+?: block: \\[\\d+,\\d+,\\d+\\], thread: \\[\\d+,\\d+,\\d+\\] Assertion `.*?` failed\\.");
        private static final Pattern DEVICE_LINE = Pattern.compile(
                "/\\S*:\\d+: [^:`]+?: block: \\[\\d+,\\d+,\\d+\\], thread: \\[\\d+,\\d+,\\d+\\] Assertion `.*` failed\\.");
        /** Where a line of the traceback (or of PyTorch's message under it) can begin. */
        private static final Pattern TRACEBACK_START = Pattern.compile(
                "Traceback \\(most recent call last\\):"
                        + "|  File \"| {4,}(?=\\S)|\\[[A-Za-z_]*\\d+\\]:|[A-Za-z_][\\w.]*(?:Error|Exception|Exit|Interrupt): "
                        + "|Search for `|CUDA kernel errors|For debugging consider|Compile with `|During handling of|The above exception");

        private static final Pattern DEVICE_FILE_LINE = Pattern.compile("/\\S*?:\\d+: ");
        /**
         * Where the sources of device code usually lie (PyTorch's build tree, Inductor's cache, home and
         * build folders): picks the start of a device path glued to the end of a cut traceback path.
         */
        private static final Pattern DEVICE_ROOT = Pattern.compile(
                "/(?:tmp|pytorch|root|home|opt|usr|var|workspace|data|mnt|scratch|build|src|builds|app)/");

        private static final int MAX_PENDING_LINES = 6;
        private static final int MAX_SPLITS = 32;
        private static final int MAX_PENDING_CHARS = 8192;

        private final java.util.function.Consumer<String> out;
        /** The start of a traceback line that a device line cut off. */
        private String carry;
        /** A device line that ended a traceback line's first part: (that part, the device line) per possible split. */
        private List<String[]> cut;
        /** The start of a device line, waiting for the rest. */
        private String device;

        private int deviceLines;
        /** The device text's last space was taken from a run of spaces the traceback line shared. */
        private boolean borrowed;

        Untangler(java.util.function.Consumer<String> out) {
            this.out = out;
        }

        void accept(String physical) {
            String line = physical;
            if (cut != null) {
                // where the device path began: the first split whose device path starts at a usual source root
                int chosen = 0;
                for (int i = 0; i < cut.size(); i++) {
                    if (DEVICE_ROOT.matcher(cut.get(i)[1]).lookingAt()) {
                        chosen = i;
                        break;
                    }
                }
                out.accept(cut.get(chosen)[1]);
                carry = cut.get(chosen)[0].isEmpty() ? null : cut.get(chosen)[0];
                cut = null;
            }
            if (carry != null) {
                line = carry + line;
                carry = null;
            }
            if (device != null) {
                // a space given to the device text at a split that turns out to have come after it
                line = (borrowed && line.startsWith(" ") ? device.substring(0, device.length() - 1) : device) + line;
                device = null;
                borrowed = false;
            }
            if (line.length() > MAX_PENDING_CHARS) {
                // no mixing is looked for in long lines: the searches below would cost too much
                deviceLines = 0;
                out.accept(line);
                return;
            }
            if (line.indexOf("Assertion `") >= 0 && !DEVICE_LINE.matcher(line).matches()) {
                Matcher m = EMBEDDED_ASSERTION.matcher(line);
                StringBuilder rest = null;
                int from = 0;
                while (m.find()) {
                    rest = rest == null ? new StringBuilder() : rest;
                    if (m.end() == line.length() && m.start() > 0) {
                        // the device line's newline ended this line, whose rest is on the next one; a
                        // traceback path cut there runs into the device path: each '/' may be its start
                        cut = new ArrayList<>();
                        for (int s = m.start(); s >= 0 && cut.size() < MAX_SPLITS; s = line.indexOf('/', s + 1)) {
                            if (DEVICE_LINE
                                    .matcher(line)
                                    .region(s, line.length())
                                    .matches()) {
                                cut.add(new String[] {rest + line.substring(from, s), line.substring(s)});
                            }
                        }
                        deviceLines = 0;
                        return;
                    }
                    out.accept(m.group());
                    rest.append(line, from, m.start());
                    from = m.end();
                }
                if (rest != null) {
                    deviceLines = 0;
                    if (from == line.length()) {
                        if (rest.length() > 0) {
                            carry = rest.toString();
                        }
                        return;
                    }
                    line = rest.append(line, from, line.length()).toString();
                }
            }
            if (line.startsWith("/") && !DEVICE_LINE.matcher(line).matches()) {
                Matcher t = TRACEBACK_START.matcher(line);
                while (t.find()) {
                    int p = splitPoint(line, t);
                    if (p > 0 && isDevicePrefix(line.substring(0, p))) {
                        device = line.substring(0, p);
                        borrowed = p > t.start() && line.charAt(t.start()) == ' ' && line.charAt(p) == ' ';
                        deviceLines++;
                        out.accept(line.substring(p));
                        return;
                    }
                }
                // alone on its line (a blank traceback line cut it): only with its file:line, a bare path is no device
                // line
                if (DEVICE_FILE_LINE.matcher(line).lookingAt()
                        && isDevicePrefix(line)
                        && deviceLines < MAX_PENDING_LINES
                        && line.length() < MAX_PENDING_CHARS) {
                    device = line;
                    deviceLines++;
                    return;
                }
            }
            deviceLines = 0;
            out.accept(line);
        }

        /**
         * Where the traceback's line begins. A run of spaces is shared: a source line has exactly four in
         * front; a caret line more, and the device text gives it at most the one space its format puts
         * after a comma or a colon.
         */
        private static int splitPoint(String line, Matcher t) {
            if (line.charAt(t.start()) != ' ' || line.startsWith("  File \"", t.start())) {
                return t.start();
            }
            int code = t.end();
            char c = line.charAt(code);
            if (c != '^' && c != '~') {
                return code - 4;
            }
            char before = t.start() > 0 ? line.charAt(t.start() - 1) : ' ';
            return Math.min(t.start() + (before == ',' || before == ':' || before == ']' ? 1 : 0), code - 4);
        }

        /** Could the text be the beginning of a device assert line? */
        private static boolean isDevicePrefix(String s) {
            Matcher m = DEVICE_LINE.matcher(s);
            return !m.matches() && m.hitEnd();
        }

        void flush() {
            if (cut != null) {
                out.accept(cut.get(0)[1]);
                if (!cut.get(0)[0].isEmpty()) {
                    out.accept(cut.get(0)[0]);
                }
                cut = null;
            }
            if (device != null) {
                out.accept(device);
                device = null;
            }
            if (carry != null) {
                out.accept(carry);
                carry = null;
            }
        }
    }

    /** CUDA messages of one stream, deduplicated by text. */
    private static final class Messages {
        final String stream;
        final Map<String, long[]> counts = new LinkedHashMap<>();
        final List<CudaFailure.CudaMessage> first = new ArrayList<>();

        Messages(String stream) {
            this.stream = stream;
        }

        void add(long line, Integer rank, String text, CudaErrorClass c) {
            String t = text.length() > 500 ? text.substring(0, 500) : text;
            long[] n = counts.get(t);
            if (n != null) {
                n[0]++;
            } else if (counts.size() < MAX_MESSAGES) {
                counts.put(t, new long[] {1});
                first.add(new CudaFailure.CudaMessage(stream, line, rank, t, c, 1));
            }
        }

        List<CudaFailure.CudaMessage> list() {
            return first.stream()
                    .map(m -> new CudaFailure.CudaMessage(
                            m.stream(), m.line(), m.rank(), m.text(), m.errorClass(), counts.get(m.text())[0]))
                    .toList();
        }
    }

    /** Device-side assertion lines, grouped, shared by every rank and the launcher. */
    private static final class Assertions {
        final Map<String, long[]> counts = new LinkedHashMap<>();
        final Map<String, CudaFailure.DeviceAssertion> first = new LinkedHashMap<>();
        long lines;

        void line(String line) {
            if (!line.contains("Assertion `") || !line.contains("failed")) {
                return;
            }
            Matcher a = ASSERTION.matcher(line.trim());
            if (!a.matches()) {
                return;
            }
            lines++;
            // whitespace left out of the key: pieces of a line mixed with a traceback may gain or lose a space
            String key = a.group(1) + ":" + a.group(2) + ":" + a.group(3) + ":"
                    + a.group(10).replaceAll("\\s+", "");
            long[] n = counts.get(key);
            if (n != null) {
                n[0]++;
            } else if (counts.size() < MAX_ASSERTIONS) {
                counts.put(key, new long[] {1});
                first.put(
                        key,
                        new CudaFailure.DeviceAssertion(
                                a.group(1),
                                FrameParser.parseInt(a.group(2)),
                                a.group(3),
                                a.group(10),
                                0,
                                "[" + a.group(4) + "," + a.group(5) + "," + a.group(6) + "]",
                                "[" + a.group(7) + "," + a.group(8) + "," + a.group(9) + "]"));
            }
        }

        List<CudaFailure.DeviceAssertion> list() {
            List<CudaFailure.DeviceAssertion> out = new ArrayList<>();
            first.forEach((k, a) -> out.add(new CudaFailure.DeviceAssertion(
                    a.file(),
                    a.line(),
                    a.function(),
                    a.condition(),
                    counts.get(k)[0],
                    a.firstBlock(),
                    a.firstThread())));
            return out;
        }
    }

    /** What one process (or the unprefixed rest of the output) printed. */
    private record Outcome(
            CudaErrorClass errorClass,
            String exceptionType,
            String message,
            List<SourceLocation> frames,
            long seq,
            boolean asyncWarning,
            boolean dsaNotCompiled,
            CudaFailure.OutOfMemory oom) {}

    /** Demultiplexes the output by rank prefix and follows the launcher's report. */
    private static final class Job {
        final Messages messages;
        final Assertions assertions = new Assertions();
        final Scan main;
        final Map<Integer, Scan> ranks = new LinkedHashMap<>();
        final Map<Integer, Scan> tableTracebacks = new LinkedHashMap<>();
        long lineNo;
        /** After spawn's "-- Process N terminated with the following error:", unprefixed lines are rank N's. */
        Integer spawnRank;
        /** The rank of the last prefixed line. */
        Integer lastRank;

        String launcherKind;
        String launcherType;
        Integer launcherRoot;
        String launcherDetail;
        String launcherMessage;
        SourceLocation launcherUserFrame;
        /** Reading torchrun's failure table. */
        Table table;

        Job(String stream) {
            this.messages = new Messages(stream);
            this.main = new Scan(null, this);
        }

        void line(String line) {
            if (line.startsWith("[")) {
                Matcher p = RANK_PREFIX.matcher(line);
                if (p.find() && (p.end() < line.length() || !p.group(2).isEmpty())) {
                    int r = FrameParser.parseInt(p.group(1));
                    Scan s = rank(r);
                    if (s != null) {
                        lastRank = r;
                        s.line(line.substring(p.end()));
                        return;
                    }
                }
            }
            if (line.isEmpty() && lastRank != null) {
                // the blank line that ends a rank's exception message comes without its prefix
                Scan s = ranks.get(lastRank);
                if (s != null) {
                    s.line(line);
                }
            }
            if (table != null && table.line(line)) {
                return;
            }
            if (spawnRank != null) {
                Scan s = rank(spawnRank);
                (s != null ? s : main).line(line);
                return;
            }
            Matcher sp = SPAWN_PROCESS.matcher(line);
            if (sp.find()) {
                spawnRank = FrameParser.parseInt(sp.group(1));
                if (launcherRoot == null) {
                    launcherRoot = spawnRank;
                }
                main.endTraceback();
                return;
            }
            main.line(line);
        }

        Scan rank(int r) {
            Scan s = ranks.get(r);
            if (s == null && ranks.size() < MAX_RANKS) {
                s = new Scan(r, this);
                ranks.put(r, s);
            }
            return s;
        }

        /** The main stream saw a launcher's exception. */
        void launcher(String type, String message, List<SourceLocation> frames) {
            launcherType = type;
            launcherMessage = message;
            launcherKind = type.endsWith("ChildFailedError") ? "torchrun" : "mp.spawn";
            int u = userFrameIndex(frames);
            launcherUserFrame = u < 0 ? null : frames.get(u);
            Matcher ex = SPAWN_EXITED.matcher(message == null ? "" : message);
            if (ex.find()) {
                launcherRoot = FrameParser.parseInt(ex.group(1));
                launcherDetail = ex.group(2).trim();
            }
            if (type.endsWith("ChildFailedError")) {
                table = new Table();
            }
        }

        CudaFailure result(String source) {
            main.endTraceback();
            ranks.values().forEach(Scan::endTraceback);
            Outcome mainOutcome = main.outcome();
            List<Integer> order = new ArrayList<>();
            Map<Integer, Outcome> byRank = new LinkedHashMap<>();
            Set<Integer> fromTable = new LinkedHashSet<>();
            ranks.forEach((r, s) -> {
                Outcome o = s.outcome();
                if (o.errorClass() != CudaErrorClass.NONE) {
                    byRank.put(r, o);
                    order.add(r);
                }
            });
            tableTracebacks.forEach((r, s) -> {
                s.endTraceback();
                Outcome o = s.outcome();
                if (!byRank.containsKey(r) && o.errorClass() != CudaErrorClass.NONE) {
                    byRank.put(r, o);
                    order.add(r);
                    fromTable.add(r);
                }
            });
            // the earliest failure first; among tracebacks only the launcher printed, its root cause first
            order.sort(Comparator.comparingLong((Integer r) -> byRank.get(r).seq())
                    .thenComparing(r -> r.equals(launcherRoot) ? 0 : 1));
            Integer rootRank = order.isEmpty() ? null : order.get(0);
            Outcome root = rootRank != null ? byRank.get(rootRank) : mainOutcome;
            if (root.errorClass() == CudaErrorClass.NONE && launcherType != null) {
                // only the launcher's report: the job failed, where is unknown (its frames are not the fault)
                root = new Outcome(
                        CudaErrorClass.NON_CUDA,
                        launcherType,
                        launcherMessage == null || launcherMessage.isBlank() ? null : launcherMessage,
                        List.of(),
                        Long.MAX_VALUE,
                        root.asyncWarning(),
                        root.dsaNotCompiled(),
                        root.oom());
                rootRank = launcherRoot;
            }

            List<SourceLocation> fr = root.frames();
            int u = userFrameIndex(fr);
            SourceLocation user = u < 0 ? null : fr.get(u);
            SourceLocation compiled = null;
            for (int i = fr.size() - 1; i > u && u >= 0; i--) {
                if (isUserFile(fr.get(i).file())) {
                    compiled = fr.get(i);
                    break;
                }
            }
            CudaErrorClass cls = root.errorClass();
            List<CudaFailure.DeviceAssertion> asserts = assertions.list();
            if (cls == CudaErrorClass.NONE && !asserts.isEmpty()) {
                cls = CudaErrorClass.DEVICE_ASSERT;
            }
            if (cls == CudaErrorClass.LAUNCH_FAILURE && !asserts.isEmpty()) {
                cls = CudaErrorClass.DEVICE_ASSERT;
            }
            boolean async = mainOutcome.asyncWarning();
            boolean dsa = mainOutcome.dsaNotCompiled();
            for (Outcome o : byRank.values()) {
                async |= o.asyncWarning();
                dsa |= o.dsaNotCompiled();
            }
            CudaFailure.OutOfMemory oom = root.oom() != null ? root.oom() : mainOutcome.oom();
            List<CudaFailure.RankFailure> rankFailures = new ArrayList<>();
            for (Integer r : order) {
                Outcome o = byRank.get(r);
                int ui = userFrameIndex(o.frames());
                rankFailures.add(new CudaFailure.RankFailure(
                        r,
                        o.errorClass(),
                        o.exceptionType(),
                        o.message(),
                        ui < 0 ? null : o.frames().get(ui),
                        fromTable.contains(r)));
            }
            CudaFailure.Launcher launcher = launcherType == null && launcherRoot == null
                    ? null
                    : new CudaFailure.Launcher(
                            launcherKind == null ? "mp.spawn" : launcherKind,
                            launcherType,
                            launcherRoot,
                            launcherDetail,
                            launcherUserFrame);
            Set<String> generated = new LinkedHashSet<>();
            for (int i = fr.size() - 1; i >= 0; i--) {
                if (isGeneratedFile(fr.get(i).file())) {
                    generated.add(fr.get(i).file());
                }
            }
            asserts.stream()
                    .map(CudaFailure.DeviceAssertion::file)
                    .filter(TracebackParser::isGeneratedFile)
                    .forEach(generated::add);
            return new CudaFailure(
                    source,
                    cls,
                    root.exceptionType(),
                    root.message(),
                    async,
                    dsa,
                    fr,
                    user,
                    asserts,
                    assertions.lines,
                    oom,
                    rootRank,
                    rankFailures,
                    launcher,
                    messages.list(),
                    compiled,
                    List.copyOf(generated),
                    null);
        }

        /** torchrun's failure table, from its first {@code ====} border to its last. */
        final class Table {
            int borders;
            boolean rootSection;
            Integer entryRank;
            Scan traceback;

            /** @return whether the line was the table's */
            boolean line(String line) {
                if (line.startsWith("Traceback (most recent call last):")) {
                    table = null;
                    return false;
                }
                if (traceback != null) {
                    if (line.startsWith("  ")) {
                        traceback.line(line.substring(2));
                        return true;
                    }
                    traceback.endTraceback();
                    traceback = null;
                }
                if (line.startsWith("=====")) {
                    if (++borders >= 2) {
                        table = null;
                    }
                    return true;
                }
                if (line.startsWith("Root Cause (first observed failure)")) {
                    rootSection = true;
                    return true;
                }
                Matcher m = TABLE_ENTRY.matcher(line);
                if (m.matches()) {
                    entryRank = null;
                    return true;
                }
                m = TABLE_RANK.matcher(line);
                if (m.find()) {
                    entryRank = FrameParser.parseInt(m.group(1));
                    if (rootSection) {
                        launcherRoot = entryRank;
                    }
                    return true;
                }
                m = TABLE_EXIT.matcher(line);
                if (m.find()) {
                    if (rootSection && launcherDetail == null) {
                        launcherDetail = "exit code " + m.group(1);
                    }
                    return true;
                }
                m = TABLE_TRACEBACK.matcher(line);
                if (m.find()) {
                    String rest = m.group(1);
                    if (rest.startsWith("Traceback (most recent call last):")
                            && entryRank != null
                            && !tableTracebacks.containsKey(entryRank)
                            && tableTracebacks.size() < MAX_RANKS) {
                        traceback = new Scan(entryRank, Job.this);
                        traceback.line(rest);
                        tableTracebacks.put(entryRank, traceback);
                    } else if (rootSection && rest.startsWith("Signal ")) {
                        launcherDetail = rest.trim();
                    }
                    return true;
                }
                return borders >= 1;
            }
        }
    }

    /** One process's output: its tracebacks and loose CUDA lines. */
    private static final class Scan {
        final Integer rank;
        final Job job;
        /** The traceback being read: its innermost {@link #MAX_FRAMES} frames. */
        List<SourceLocation> frames;
        /** The innermost user frame dropped from {@link #frames}, or null. */
        SourceLocation droppedUser;

        long tracebackStart;
        boolean ignoredTraceback;
        boolean pendingIgnored;
        SourceLocation lastFrame;
        String lastFrameCode;
        /** Lines after an exception line, until a blank line: its message. */
        boolean inExceptionMessage;
        /** The chosen one. */
        List<SourceLocation> chosenFrames = List.of();

        String chosenType;
        String chosenMessage;
        CudaErrorClass chosenClass;
        long chosenSeq;
        /** First non-ignored traceback, as fallback. */
        List<SourceLocation> firstFrames;

        String firstType;
        String firstMessage;
        long firstSeq;
        boolean asyncWarning;
        boolean dsaNotCompiled;
        CudaErrorClass loose;
        String looseMessage;
        long looseSeq;
        CudaFailure.OutOfMemory oom;
        boolean awaitingException;

        Scan(Integer rank, Job job) {
            this.rank = rank;
            this.job = job;
        }

        void line(String line) {
            if (line.startsWith("Traceback (most recent call last):")) {
                endTraceback();
                frames = new ArrayList<>();
                droppedUser = null;
                tracebackStart = job.lineNo;
                ignoredTraceback = pendingIgnored;
                pendingIgnored = false;
                awaitingException = true;
                inExceptionMessage = false;
                return;
            }
            if (line.startsWith("Exception ignored in")) {
                pendingIgnored = true;
            }
            if (line.isBlank()) {
                inExceptionMessage = false;
            }
            if (frames != null && awaitingException) {
                if (line.contains("Assertion `")
                        && ASSERTION.matcher(line.trim()).matches()) {
                    job.assertions.line(line); // the GPU's assert text, printed into the traceback
                    return;
                }
                Matcher f = FRAME.matcher(line);
                if (f.matches()) {
                    flushFrame();
                    lastFrame = SourceLocation.of(
                            f.group(1),
                            FrameParser.parseInt(f.group(2)),
                            f.group(3).trim());
                    lastFrameCode = null;
                    return;
                }
                if (line.startsWith("    ") && lastFrame != null) {
                    String code = line.trim();
                    if (lastFrameCode == null
                            && !code.isEmpty()
                            && !code.chars().allMatch(c -> c == '^' || c == '~' || c == ' ')) {
                        lastFrameCode = code.length() > 300 ? code.substring(0, 300) : code;
                    }
                    return;
                }
                if (!line.isEmpty() && !Character.isWhitespace(line.charAt(0))) {
                    Matcher e = EXCEPTION.matcher(line);
                    flushFrame();
                    awaitingException = false;
                    String type = e.matches() ? e.group(1) : null;
                    String message = e.matches() ? e.group(2) : line;
                    exception(type, message, line);
                    generic(line, false);
                    inExceptionMessage = true;
                    return;
                }
            }
            generic(line, !inExceptionMessage && !(frames != null && awaitingException));
        }

        void flushFrame() {
            if (lastFrame != null && frames != null) {
                if (frames.size() == MAX_FRAMES) {
                    // drop the outermost: the innermost frames name the fault (a 100,000-frame recursion)
                    SourceLocation dropped = frames.remove(0);
                    if (isUserFile(dropped.file())) {
                        droppedUser = dropped;
                    }
                }
                frames.add(new SourceLocation(lastFrame.file(), lastFrame.line(), lastFrame.function(), lastFrameCode));
                lastFrame = null;
                lastFrameCode = null;
            }
        }

        void exception(String type, String message, String line) {
            if (ignoredTraceback) {
                return;
            }
            if (droppedUser != null && frames != null && userFrameIndex(frames) < 0) {
                frames.add(0, droppedUser); // every kept frame is library code: keep the innermost user frame
            }
            if (type != null && LAUNCHER_EXCEPTION.matcher(type).find()) {
                job.launcher(type, message, frames);
                return;
            }
            CudaErrorClass c = CudaErrorClass.classify(line);
            if (firstFrames == null) {
                firstFrames = frames;
                firstType = type;
                firstMessage = message;
                firstSeq = tracebackStart;
            }
            if (c != null && chosenClass == null) {
                chosenClass = c;
                chosenFrames = frames;
                chosenType = type;
                chosenMessage = message;
                chosenSeq = tracebackStart;
            }
        }

        void endTraceback() {
            flushFrame();
            frames = null;
            awaitingException = false;
        }

        /** @param outside the line is neither in a traceback nor in an exception's message */
        void generic(String line, boolean outside) {
            if (line.contains("might be asynchronously reported")) {
                asyncWarning = true;
            }
            if (line.contains("Compile with `TORCH_USE_CUDA_DSA`")) {
                dsaNotCompiled = true;
            }
            job.assertions.line(line);
            if (oom == null && line.contains("Tried to allocate")) {
                Matcher m = OOM.matcher(line);
                if (m.find()) {
                    oom = new CudaFailure.OutOfMemory(
                            bytes(m.group(1)),
                            m.group(2),
                            bytes(m.group(3)),
                            bytes(m.group(4)),
                            bytes(m.group(5)),
                            bytes(m.group(6)));
                }
            }
            CudaErrorClass c = CudaErrorClass.classify(line);
            if (c == null) {
                return;
            }
            Matcher w = CPP_WHAT.matcher(line);
            String text =
                    LOG_HEADER.matcher(w.matches() ? w.group(1) : line.trim()).replaceFirst("");
            if (outside && !isHint(text)) {
                job.messages.add(job.lineNo, rank, text, c);
            }
            if (loose == null || loose == CudaErrorClass.OTHER_CUDA && c != CudaErrorClass.OTHER_CUDA) {
                loose = c;
                looseMessage = text;
                looseSeq = job.lineNo;
            }
        }

        /** PyTorch's advice lines under a CUDA error: not errors themselves. */
        private static boolean isHint(String text) {
            return text.startsWith("Search for `cuda")
                    || text.startsWith("terminate called after throwing")
                    || text.startsWith("Exception raised from")
                    || text.startsWith("CUDA kernel errors might be")
                    || text.startsWith("For debugging consider passing")
                    || text.startsWith("Compile with `TORCH_USE_CUDA_DSA`");
        }

        Outcome outcome() {
            if (chosenClass != null) {
                return new Outcome(
                        chosenClass,
                        chosenType,
                        chosenMessage,
                        chosenFrames,
                        chosenSeq,
                        asyncWarning,
                        dsaNotCompiled,
                        oom);
            }
            if (loose != null) {
                return new Outcome(
                        loose,
                        firstFrames != null ? firstType : null,
                        looseMessage,
                        firstFrames != null ? firstFrames : List.of(),
                        firstFrames != null ? Math.min(firstSeq, looseSeq) : looseSeq,
                        asyncWarning,
                        dsaNotCompiled,
                        oom);
            }
            if (firstFrames != null) {
                return new Outcome(
                        CudaErrorClass.NON_CUDA,
                        firstType,
                        firstMessage,
                        firstFrames,
                        firstSeq,
                        asyncWarning,
                        dsaNotCompiled,
                        oom);
            }
            return new Outcome(
                    CudaErrorClass.NONE, null, null, List.of(), Long.MAX_VALUE, asyncWarning, dsaNotCompiled, oom);
        }
    }

    /** {@code 372.53 GiB} to bytes, as PyTorch's format_size writes sizes. */
    static long bytes(String size) {
        String[] p = size.trim().split("\\s+");
        if (p.length != 2) {
            return -1;
        }
        double v;
        try {
            v = Double.parseDouble(p[0]);
        } catch (NumberFormatException e) {
            return -1;
        }
        double mult =
                switch (p[1].toLowerCase(Locale.ROOT)) {
                    case "bytes", "byte", "b" -> 1;
                    case "kib" -> 1024;
                    case "mib" -> 1024.0 * 1024;
                    case "gib" -> 1024.0 * 1024 * 1024;
                    case "tib" -> 1024.0 * 1024 * 1024 * 1024;
                    default -> -1;
                };
        return mult < 0 ? -1 : Math.round(v * mult);
    }
}
