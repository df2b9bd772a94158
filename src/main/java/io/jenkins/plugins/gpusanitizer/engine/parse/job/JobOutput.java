package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameOrigin;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A job's error output: demultiplexed by rank prefix into one {@link ProcessOutput} per worker (the
 * unprefixed rest is the main process's), with the launcher's report followed beside it, then
 * resolved into one {@link CudaFailure}: the earliest failing rank's.
 */
final class JobOutput {
    static final int MAX_RANKS = 256;

    /**
     * A worker's line prefix: {@code [rank3]: } (PyTorch's distributed logging), {@code [default3]:}
     * (torchrun's {@code --log-line-prefix-template} default {@code [${role_name}${local_rank}]:}),
     * {@code [3]:} ({@code [${rank}]:}). The launcher's failure table has bare {@code [0]:} lines: a
     * prefix needs text after it.
     */
    private static final Pattern RANK_PREFIX = Pattern.compile("^\\[(?:[A-Za-z_][\\w-]*?)?(\\d{1,6})\\]:( ?)");

    private static final Pattern SPAWN_PROCESS =
            Pattern.compile("^-- Process (\\d+) terminated with the following error:");

    final CudaMessages messages;
    final DeviceAssertions assertions = new DeviceAssertions();
    final LauncherReport launcher = new LauncherReport(this);
    private final ProcessOutput main;
    private final Map<Integer, ProcessOutput> ranks = new LinkedHashMap<>();
    /** The physical line read last: where messages and tracebacks are said to be. */
    long lineNo;
    /** After spawn's "-- Process N terminated with the following error:", unprefixed lines are rank N's. */
    private Integer spawnRank;
    /** The rank of the last prefixed line. */
    private Integer lastRank;

    JobOutput(String stream) {
        this.messages = new CudaMessages(stream);
        this.main = new ProcessOutput(null, this);
    }

    void line(String line) {
        if (line.startsWith("[")) {
            Matcher p = RANK_PREFIX.matcher(line);
            if (p.find() && (p.end() < line.length() || !p.group(2).isEmpty())) {
                int r = FrameParser.parseInt(p.group(1));
                ProcessOutput s = rank(r);
                if (s != null) {
                    lastRank = r;
                    s.line(line.substring(p.end()));
                    return;
                }
            }
        }
        if (line.isEmpty() && lastRank != null) {
            // the blank line that ends a rank's exception message comes without its prefix
            ProcessOutput s = ranks.get(lastRank);
            if (s != null) {
                s.line(line);
            }
        }
        if (launcher.tableLine(line)) {
            return;
        }
        if (spawnRank != null) {
            ProcessOutput s = rank(spawnRank);
            (s != null ? s : main).line(line);
            return;
        }
        Matcher sp = SPAWN_PROCESS.matcher(line);
        if (sp.find()) {
            spawnRank = FrameParser.parseInt(sp.group(1));
            launcher.spawnProcess(spawnRank);
            main.endTraceback();
            return;
        }
        main.line(line);
    }

    private ProcessOutput rank(int r) {
        ProcessOutput s = ranks.get(r);
        if (s == null && ranks.size() < MAX_RANKS) {
            s = new ProcessOutput(r, this);
            ranks.put(r, s);
        }
        return s;
    }

    /** The earliest failing rank's failure (else the main process's), with what every process said beside it. */
    CudaFailure result(String source) {
        main.endTraceback();
        ranks.values().forEach(ProcessOutput::endTraceback);
        ProcessOutcome mainOutcome = main.outcome();
        Failing failing = failingRanks();
        Integer rootRank = failing.order().isEmpty() ? null : failing.order().get(0);
        ProcessOutcome root = rootRank != null ? failing.byRank().get(rootRank) : mainOutcome;
        if (root.errorClass() == CudaErrorClass.NONE && launcher.type != null) {
            root = launcherOnly(root);
            rootRank = launcher.root;
        }
        List<SourceLocation> fr = root.frames();
        int u = FrameOrigin.userFrameIndex(fr);
        List<CudaFailure.DeviceAssertion> asserts = assertions.list();
        boolean async = mainOutcome.asyncWarning();
        boolean dsa = mainOutcome.dsaNotCompiled();
        for (ProcessOutcome o : failing.byRank().values()) {
            async |= o.asyncWarning();
            dsa |= o.dsaNotCompiled();
        }
        return CudaFailure.builder()
                .source(source)
                .errorClass(errorClass(root, asserts))
                .exceptionType(root.exceptionType())
                .message(root.message())
                .asyncWarning(async)
                .dsaNotCompiled(dsa)
                .frames(fr)
                .userFrame(u < 0 ? null : fr.get(u))
                .assertions(asserts)
                .assertionLines(assertions.lines())
                .oom(root.oom() != null ? root.oom() : mainOutcome.oom())
                .rank(rootRank)
                .ranks(rankFailures(failing))
                .launcher(launcher.launcher())
                .messages(messages.list())
                .compiledFrame(compiledFrame(fr, u))
                .generatedFiles(generatedFiles(fr, asserts))
                .build();
    }

    /**
     * The ranks that failed, the earliest first, from their own output or else the launcher's table.
     *
     * @param fromTable the ranks known only from the tracebacks the launcher printed
     */
    private record Failing(List<Integer> order, Map<Integer, ProcessOutcome> byRank, Set<Integer> fromTable) {}

    private Failing failingRanks() {
        List<Integer> order = new ArrayList<>();
        Map<Integer, ProcessOutcome> byRank = new LinkedHashMap<>();
        Set<Integer> fromTable = new LinkedHashSet<>();
        ranks.forEach((r, s) -> {
            ProcessOutcome o = s.outcome();
            if (o.errorClass() != CudaErrorClass.NONE) {
                byRank.put(r, o);
                order.add(r);
            }
        });
        launcher.tableTracebacks.forEach((r, s) -> {
            s.endTraceback();
            ProcessOutcome o = s.outcome();
            if (!byRank.containsKey(r) && o.errorClass() != CudaErrorClass.NONE) {
                byRank.put(r, o);
                order.add(r);
                fromTable.add(r);
            }
        });
        // the earliest failure first; among tracebacks only the launcher printed, its root cause first
        order.sort(Comparator.comparingLong((Integer r) -> byRank.get(r).seq())
                .thenComparing(r -> r.equals(launcher.root) ? 0 : 1));
        return new Failing(order, byRank, fromTable);
    }

    /** Only the launcher's report: the job failed, where is unknown (its frames are not the fault). */
    private ProcessOutcome launcherOnly(ProcessOutcome root) {
        return new ProcessOutcome(
                CudaErrorClass.NON_CUDA,
                launcher.type,
                launcher.message == null || launcher.message.isBlank() ? null : launcher.message,
                List.of(),
                Long.MAX_VALUE,
                root.asyncWarning(),
                root.dsaNotCompiled(),
                root.oom());
    }

    /** A device assert printed beside no CUDA error, or beside the launch failure it caused, is the error. */
    private static CudaErrorClass errorClass(ProcessOutcome root, List<CudaFailure.DeviceAssertion> asserts) {
        CudaErrorClass cls = root.errorClass();
        if ((cls == CudaErrorClass.NONE || cls == CudaErrorClass.LAUNCH_FAILURE) && !asserts.isEmpty()) {
            return CudaErrorClass.DEVICE_ASSERT;
        }
        return cls;
    }

    /** The innermost user frame below the user's own (a compiled function's def line), or null. */
    private static SourceLocation compiledFrame(List<SourceLocation> fr, int user) {
        for (int i = fr.size() - 1; i > user && user >= 0; i--) {
            if (FrameOrigin.isUserFile(fr.get(i).file())) {
                return fr.get(i);
            }
        }
        return null;
    }

    private static List<CudaFailure.RankFailure> rankFailures(Failing failing) {
        List<CudaFailure.RankFailure> rankFailures = new ArrayList<>();
        for (Integer r : failing.order()) {
            ProcessOutcome o = failing.byRank().get(r);
            int ui = FrameOrigin.userFrameIndex(o.frames());
            rankFailures.add(new CudaFailure.RankFailure(
                    r,
                    o.errorClass(),
                    o.exceptionType(),
                    o.message(),
                    ui < 0 ? null : o.frames().get(ui),
                    failing.fromTable().contains(r)));
        }
        return rankFailures;
    }

    /** The generated files (Inductor, Triton) the traceback and the device asserts name. */
    private static List<String> generatedFiles(List<SourceLocation> fr, List<CudaFailure.DeviceAssertion> asserts) {
        Set<String> generated = new LinkedHashSet<>();
        for (int i = fr.size() - 1; i >= 0; i--) {
            if (FrameOrigin.isGeneratedFile(fr.get(i).file())) {
                generated.add(fr.get(i).file());
            }
        }
        asserts.stream()
                .map(CudaFailure.DeviceAssertion::file)
                .filter(FrameOrigin::isGeneratedFile)
                .forEach(generated::add);
        return List.copyOf(generated);
    }
}
