package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a PyTorch job's error output (stderr, or stdout+stderr): classifies the CUDA failure and
 * finds the innermost frame of the Python traceback that is the user's own code. Tracebacks that
 * Python prints under "Exception ignored in" (destructors failing after the real error, as cupy's
 * module unload does) are skipped. Streams the file; keeps only the chosen traceback.
 */
public final class TracebackParser {
    private static final int MAX_FRAMES = 200;
    private static final int MAX_ASSERTIONS = 20;

    private static final Pattern FRAME = Pattern.compile("^\\s*File \"(.+)\", line (\\d+), in (.+)$");
    private static final Pattern EXCEPTION =
            Pattern.compile("^([A-Za-z_][\\w.]*(?:Error|Exception|Exit|Interrupt|Warning)?): ?(.*)$");
    private static final Pattern ASSERTION = Pattern.compile(
            "^(\\S+):(\\d+): (.+?): block: \\[(\\d+),(\\d+),(\\d+)\\], thread: \\[(\\d+),(\\d+),(\\d+)\\] Assertion `(.*)` failed\\.?$");
    private static final Pattern OOM = Pattern.compile(
            "Tried to allocate ([\\d.]+ \\w+)\\. GPU ?(\\d*) has a total capac(?:i)?ty of ([\\d.]+ \\w+) of which ([\\d.]+ \\w+) is free\\..*?"
                    + "Of the allocated memory ([\\d.]+ \\w+) is allocated by PyTorch, and ([\\d.]+ \\w+) is reserved by PyTorch but unallocated");
    private static final Pattern CPP_WHAT = Pattern.compile("^\\s*what\\(\\):\\s+(.*)$");

    public CudaFailure parse(Path file) {
        return InputFiles.read(file, in -> parse(in, file.toString()));
    }

    public CudaFailure parse(InputStream in, String source) throws IOException {
        BoundedLineReader lines = new BoundedLineReader(new InputStreamReader(
                in,
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE)));
        Scan scan = new Scan();
        String line;
        while ((line = lines.readLine()) != null) {
            scan.line(line);
        }
        scan.endTraceback();
        return scan.result(source);
    }

    /** A frame is the user's when it is a .py file outside installed packages and the standard library. */
    public static boolean isUserFile(String file) {
        if (file == null || file.startsWith("<") || !(file.endsWith(".py") || file.endsWith(".ipynb"))) {
            return false;
        }
        String f = file.indexOf('\\') >= 0 ? file.replace('\\', '/') : file;
        if (f.contains("/site-packages/") || f.contains("/dist-packages/")) {
            return false;
        }
        if (f.endsWith("/gpu_sanitize_probe.py")) {
            return false; // gpu-sanitize's own probe (engine/run/probe): a wrapper frame, never the user's line
        }
        int lib = f.indexOf("/lib/python");
        return lib < 0 || !(lib + 11 < f.length() && Character.isDigit(f.charAt(lib + 11)));
    }

    private static final class Scan {
        /** The traceback being read. */
        List<SourceLocation> frames;

        boolean ignoredTraceback;
        boolean pendingIgnored;
        SourceLocation lastFrame;
        String lastFrameCode;
        /** The chosen one. */
        List<SourceLocation> chosenFrames = List.of();

        String chosenType;
        String chosenMessage;
        CudaErrorClass chosenClass;
        /** First non-ignored traceback, as fallback. */
        List<SourceLocation> firstFrames;

        String firstType;
        String firstMessage;
        boolean asyncWarning;
        boolean dsaNotCompiled;
        CudaErrorClass loose;
        String looseMessage;
        final Map<String, long[]> assertionCounts = new LinkedHashMap<>();
        final Map<String, CudaFailure.DeviceAssertion> assertionFirst = new LinkedHashMap<>();
        long assertionLines;
        CudaFailure.OutOfMemory oom;
        boolean awaitingException;

        void line(String raw) {
            String line = raw.indexOf('\u001b') >= 0 ? raw.replaceAll("\u001b\\[[0-9;]*[A-Za-z]", "") : raw;
            if (line.startsWith("Traceback (most recent call last):")) {
                endTraceback();
                frames = new ArrayList<>();
                ignoredTraceback = pendingIgnored;
                pendingIgnored = false;
                awaitingException = true;
                return;
            }
            if (line.startsWith("Exception ignored in")) {
                pendingIgnored = true;
            }
            if (frames != null && awaitingException) {
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
                }
            }
            generic(line);
        }

        void flushFrame() {
            if (lastFrame != null && frames != null) {
                if (frames.size() < MAX_FRAMES) {
                    frames.add(new SourceLocation(
                            lastFrame.file(), lastFrame.line(), lastFrame.function(), lastFrameCode));
                }
                lastFrame = null;
                lastFrameCode = null;
            }
        }

        void exception(String type, String message, String line) {
            if (ignoredTraceback) {
                return;
            }
            CudaErrorClass c = CudaErrorClass.classify(line);
            if (firstFrames == null) {
                firstFrames = frames;
                firstType = type;
                firstMessage = message;
            }
            if (c != null && chosenClass == null) {
                chosenClass = c;
                chosenFrames = frames;
                chosenType = type;
                chosenMessage = message;
            }
        }

        void endTraceback() {
            flushFrame();
            frames = null;
            awaitingException = false;
        }

        void generic(String line) {
            if (line.contains("might be asynchronously reported")) {
                asyncWarning = true;
            }
            if (line.contains("Compile with `TORCH_USE_CUDA_DSA`")) {
                dsaNotCompiled = true;
            }
            if (line.contains("Assertion `") && line.contains("failed")) {
                Matcher a = ASSERTION.matcher(line.trim());
                if (a.matches()) {
                    assertionLines++;
                    String key = a.group(1) + ":" + a.group(2) + ":" + a.group(3) + ":" + a.group(10);
                    long[] n = assertionCounts.get(key);
                    if (n != null) {
                        n[0]++;
                    } else if (assertionCounts.size() < MAX_ASSERTIONS) {
                        assertionCounts.put(key, new long[] {1});
                        assertionFirst.put(
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
            }
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
            if (loose == null || loose == CudaErrorClass.OTHER_CUDA) {
                CudaErrorClass c = CudaErrorClass.classify(line);
                if (c != null && (loose == null || c != CudaErrorClass.OTHER_CUDA)) {
                    loose = c;
                    Matcher w = CPP_WHAT.matcher(line);
                    looseMessage = w.matches() ? w.group(1) : line.trim();
                }
            }
        }

        CudaFailure result(String source) {
            List<CudaFailure.DeviceAssertion> asserts = new ArrayList<>();
            assertionFirst.forEach((k, a) -> asserts.add(new CudaFailure.DeviceAssertion(
                    a.file(),
                    a.line(),
                    a.function(),
                    a.condition(),
                    assertionCounts.get(k)[0],
                    a.firstBlock(),
                    a.firstThread())));
            CudaErrorClass cls = chosenClass;
            List<SourceLocation> fr = chosenFrames;
            String type = chosenType;
            String msg = chosenMessage;
            if (cls == null) {
                if (loose != null) {
                    cls = loose;
                    msg = looseMessage;
                    if (firstFrames != null) {
                        fr = firstFrames;
                        type = firstType;
                    }
                } else if (firstFrames != null) {
                    cls = CudaErrorClass.NON_CUDA;
                    fr = firstFrames;
                    type = firstType;
                    msg = firstMessage;
                } else {
                    cls = asserts.isEmpty() ? CudaErrorClass.NONE : CudaErrorClass.DEVICE_ASSERT;
                }
            }
            if (cls == CudaErrorClass.LAUNCH_FAILURE && !asserts.isEmpty()) {
                cls = CudaErrorClass.DEVICE_ASSERT;
            }
            SourceLocation user = null;
            for (int i = fr.size() - 1; i >= 0; i--) {
                if (isUserFile(fr.get(i).file())) {
                    user = fr.get(i);
                    break;
                }
            }
            return new CudaFailure(
                    source, cls, type, msg, asyncWarning, dsaNotCompiled, fr, user, asserts, assertionLines, oom);
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
