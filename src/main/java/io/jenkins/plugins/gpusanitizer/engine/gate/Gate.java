package io.jenkins.plugins.gpusanitizer.engine.gate;

import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurve;
import io.jenkins.plugins.gpusanitizer.engine.findings.Defect;
import io.jenkins.plugins.gpusanitizer.engine.findings.DeviceAsserts;
import io.jenkins.plugins.gpusanitizer.engine.findings.KernelNames;
import io.jenkins.plugins.gpusanitizer.engine.findings.RuntimeKernels;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaErrorClass;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns findings into a verdict. Fails closed: a tool that did not finish, crashed or refused to run
 * is an ERROR, never a PASS ({@link RunCompleteness} judges each run's output before its findings).
 * FAIL outranks ERROR (a confirmed bug is the more useful message; the error is still listed), ERROR
 * outranks UNSTABLE.
 */
public final class Gate {
    static final int MAX_DEFECT_REASONS = 20;

    /**
     * Everything the gate judges.
     *
     * @param runs             sanitizer runs
     * @param failures         the job's own failures by phase name ({@code async}, {@code blocking}, ...)
     * @param curves           memory curves
     * @param cachingAllocator whether memcheck ran with PyTorch's caching allocator on; null when unknown
     * @param inputErrors      inputs that could not be read (errors)
     * @param inputNotes       what the readers noticed about inputs they could read (skipped lines, ...)
     */
    public record Input(
            List<SanitizerRun> runs,
            Map<String, CudaFailure> failures,
            List<MemoryCurve> curves,
            Boolean cachingAllocator,
            List<String> inputErrors,
            List<Reason> inputNotes) {
        public Input(
                List<SanitizerRun> runs,
                Map<String, CudaFailure> failures,
                List<MemoryCurve> curves,
                Boolean cachingAllocator,
                List<String> inputErrors) {
            this(runs, failures, curves, cachingAllocator, inputErrors, List.of());
        }

        public Input(
                List<SanitizerRun> runs,
                Map<String, CudaFailure> failures,
                List<MemoryCurve> curves,
                Boolean cachingAllocator) {
            this(runs, failures, curves, cachingAllocator, List.of());
        }
    }

    /** The verdict and why. */
    public record Result(Verdict verdict, List<Reason> reasons) {
        public Result {
            reasons = List.copyOf(reasons);
        }
    }

    private final GatePolicy policy;
    private final WorkPaths paths;
    private final RunCompleteness completeness;

    /** Names the job's files by their base names (the working directory is unknown). */
    public Gate(GatePolicy policy) {
        this(policy, WorkPaths.UNKNOWN);
    }

    /** @param paths names the job's files by their path under the working directory */
    public Gate(GatePolicy policy, WorkPaths paths) {
        this.policy = policy;
        this.paths = paths;
        this.completeness = new RunCompleteness(policy);
    }

    public Result evaluate(Input in) {
        List<Reason> reasons = new ArrayList<>();
        in.inputErrors().forEach(e -> reasons.add(Reason.error("unreadable-output", e)));
        reasons.addAll(in.inputNotes());
        int defectReasons = 0;
        int moreDefects = 0;
        GateAction moreAction = GateAction.IGNORE;
        for (SanitizerRun run : in.runs()) {
            completeness.judge(run, in.runs(), reasons);
            for (Defect d : run.unsuppressed()) {
                GateAction a = policy.actionFor(d.tool(), d.error());
                if (a == GateAction.IGNORE) {
                    continue;
                }
                if (defectReasons++ >= MAX_DEFECT_REASONS) {
                    // not listed one by one, but still judged: the worst of them decides like the listed ones
                    moreDefects++;
                    moreAction = a == GateAction.FAIL || moreAction == GateAction.FAIL
                            ? GateAction.FAIL
                            : GateAction.UNSTABLE;
                    continue;
                }
                String text = describe(d, firstAssertion(in)) + raceContext(d, in.runs());
                reasons.add((a == GateAction.FAIL ? Reason.fail("defect", text) : Reason.unstable("defect", text))
                        .about(d.id()));
            }
            long suppressed = run.defects().stream().filter(Defect::suppressed).count();
            if (suppressed > 0) {
                reasons.add(Reason.info(
                        "suppressed",
                        run.tool().id() + ": " + suppressed
                                + " defect(s) suppressed as known noise (listed in the report with their rule)"));
            }
        }
        if (moreDefects > 0) {
            String text = moreDefects + " more unsuppressed defect(s), see the report";
            reasons.add(
                    moreAction == GateAction.FAIL
                            ? Reason.fail("more-defects", text)
                            : Reason.unstable("more-defects", text));
        }
        in.failures().forEach((phase, f) -> failure(phase, f, reasons));
        cachingAllocator(in, reasons);
        for (MemoryCurve c : in.curves()) {
            memory(c, reasons);
        }
        if (in.runs().isEmpty()
                && in.failures().isEmpty()
                && in.curves().isEmpty()
                && in.inputErrors().isEmpty()) {
            reasons.add(Reason.error(
                    "no-evidence", "nothing was analysed: no sanitizer output, job log or memory samples"));
        }
        return new Result(verdictOf(reasons), ordered(reasons));
    }

    /**
     * Growth acts only when it is sustained (the curve's shape), at least the tolerance, and would
     * fill the GPU within the policy's horizon at the measured rate; slower growth is an info line.
     */
    private void memory(MemoryCurve c, List<Reason> reasons) {
        double horizon = policy.memoryPolicy().fillHorizonHours();
        if (c.shape() != MemoryCurve.Shape.GROWING
                || c.growthMiBPerMin() < policy.growthToleranceMiBPerMin()
                || policy.memoryGrowthAction() == GateAction.IGNORE) {
            return;
        }
        String rate = String.format(
                Locale.ROOT,
                "GPU %s memory grows %s MiB/min after warm-up (peak %.0f MiB)",
                c.gpu(),
                MemoryCurve.rate(c.growthMiBPerMin()),
                c.peakMiB());
        if (!c.fillsWithin(horizon)) {
            reasons.add(Reason.info(
                    "memory-growth-slow",
                    String.format(
                            Locale.ROOT,
                            "%s: the card would be full in %s, beyond the fill horizon of %s",
                            rate,
                            MemoryCurve.duration(c.hoursToFull()),
                            MemoryCurve.duration(horizon))));
            return;
        }
        String text = rate
                + (c.hoursToFull() == null
                        ? ": a leak or unbounded cache (memory.total unknown)"
                        : String.format(
                                Locale.ROOT,
                                ": the card would be full in %s, within the fill horizon of %s: a leak or unbounded cache",
                                MemoryCurve.duration(c.hoursToFull()),
                                MemoryCurve.duration(horizon)));
        reasons.add(
                policy.memoryGrowthAction() == GateAction.FAIL
                        ? Reason.fail("memory-growth", text)
                        : Reason.unstable("memory-growth", text));
    }

    /** The reasons most important first (fail, error, unstable, warning, info), in their order within a level. */
    public static List<Reason> ordered(List<Reason> reasons) {
        List<Reason> out = new ArrayList<>(reasons);
        out.sort(java.util.Comparator.comparing(Reason::level));
        return out;
    }

    public static Verdict verdictOf(List<Reason> reasons) {
        if (reasons.stream().anyMatch(r -> r.level() == Reason.Level.FAIL)) {
            return Verdict.FAIL;
        }
        if (reasons.stream().anyMatch(r -> r.level() == Reason.Level.ERROR)) {
            return Verdict.ERROR;
        }
        if (reasons.stream().anyMatch(r -> r.level() == Reason.Level.UNSTABLE)) {
            return Verdict.UNSTABLE;
        }
        return Verdict.PASS;
    }

    /** The assertion's own words when it has a message literal ({@code && "index out of bounds"}), with its file:line. */
    static String assertionText(CudaFailure.DeviceAssertion a) {
        String c = a.condition() == null ? "" : a.condition();
        int q = c.indexOf('"');
        int end = c.lastIndexOf('"');
        String words = q >= 0 && end > q ? c.substring(q + 1, end) : c;
        return words + (a.file() == null ? "" : " (" + Frame.baseName(a.file()) + ":" + a.line() + ")");
    }

    private void failure(String phase, CudaFailure f, List<Reason> reasons) {
        String where = f.userFrame() != null
                ? " at " + paths.at(f.userFrame()) + (f.rank() == null ? "" : " on rank " + f.rank())
                : f.withoutTraceback()
                        ? " (printed without a traceback, " + f.firstMessage().stream() + " line "
                                + f.firstMessage().line() + ")"
                        : f.rank() != null ? " on rank " + f.rank() : "";
        String what = f.message() == null ? f.errorClass().text() : f.message();
        CudaErrorClass fault = f.errorClass() == CudaErrorClass.NONE ? null : f.memoryFault();
        if (fault != null && fault != f.errorClass()) {
            // another rank or a line beside the traceback names the fault the reported error passes on
            add(
                    reasons,
                    policy.crashAction(),
                    "crash",
                    phase + " run hit a GPU error: " + fault.text() + ", reported as "
                            + f.errorClass().text() + where);
            if (f.errorClass() == CudaErrorClass.NCCL || f.errorClass() == CudaErrorClass.OTHER_CUDA) {
                return;
            }
        }
        switch (f.errorClass()) {
            case NONE -> {}
            case OUT_OF_MEMORY ->
                add(reasons, policy.oomAction(), "oom", phase + " run: out of GPU memory" + where + ": " + what);
            case NCCL -> add(reasons, policy.ncclAction(), "nccl", phase + " run: NCCL error" + where + ": " + what);
            case NON_CUDA ->
                reasons.add(Reason.error(
                        "job-error",
                        phase + " run: the job failed with "
                                + (f.exceptionType() == null ? "an error" : f.exceptionType()) + where
                                + " before the GPU could be judged: " + what));
            case OTHER_CUDA ->
                reasons.add(Reason.error("cuda-error", phase + " run: CUDA error" + where + ": " + what));
            default ->
                add(
                        reasons,
                        policy.crashAction(),
                        "crash",
                        phase
                                + (f.withoutTraceback() ? " run hit a GPU error: " : " run crashed: ")
                                + f.errorClass().text()
                                + where
                                + (f.assertions().isEmpty()
                                        ? ""
                                        : "; device assert: "
                                                + f.assertions().get(0).condition()));
        }
    }

    private static void add(List<Reason> reasons, GateAction a, String code, String text) {
        if (a == GateAction.FAIL) {
            reasons.add(Reason.fail(code, text));
        } else if (a == GateAction.UNSTABLE) {
            reasons.add(Reason.unstable(code, text));
        }
    }

    private static void cachingAllocator(Input in, List<Reason> reasons) {
        boolean memcheck = in.runs().stream().anyMatch(r -> r.tool() == Tool.MEMCHECK);
        if (!memcheck) {
            return;
        }
        if (Boolean.TRUE.equals(in.cachingAllocator())) {
            reasons.add(Reason.warning(
                    "caching-allocator",
                    "memcheck ran with PyTorch's caching allocator on: small "
                            + "out-of-bounds accesses land inside cached blocks and are invisible to it; rerun with "
                            + "PYTORCH_NO_CUDA_MEMORY_CACHING=1 to check them"));
        } else if (in.cachingAllocator() == null) {
            reasons.add(
                    Reason.info(
                            "caching-allocator-unknown",
                            "not known whether memcheck ran with "
                                    + "PYTORCH_NO_CUDA_MEMORY_CACHING=1; for a PyTorch job without it, small out-of-bounds accesses are invisible"));
        }
    }

    /**
     * A race's hazards and access pair; racecheck's analysis records carry no host stack, so the launch
     * site comes from another tool's record of the same kernel when there is one.
     */
    String raceContext(Defect d, List<SanitizerRun> runs) {
        if (d.kind() != Kind.RACE) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        if (d.detail() != null) {
            sb.append("; ").append(d.detail());
        }
        if (d.hostLocation() == null) {
            String kernel = KernelNames.simple(d.kernel());
            String elsewhere = runs.stream()
                    .flatMap(r -> r.defects().stream())
                    .filter(o -> o != d && o.hostLocation() != null && kernel != null)
                    .filter(o -> kernel.equals(KernelNames.simple(o.kernel())))
                    .map(o ->
                            paths.at(o.hostLocation()) + " (seen by " + o.tool().id() + ")")
                    .findFirst()
                    .orElse(null);
            sb.append(
                    elsewhere == null
                            ? "; racecheck's analysis records carry no host stack, so the launch site is unknown "
                                    + "(--racecheck-report hazard records it)"
                            : "; racecheck records no host stack; the same kernel was launched from " + elsewhere);
        }
        return sb.toString();
    }

    /** The first device-side assertion the job printed (blocking run first), or null. */
    private static CudaFailure.DeviceAssertion firstAssertion(Input in) {
        for (String phase : List.of("blocking", "async")) {
            CudaFailure f = in.failures().get(phase);
            if (f != null && !f.assertions().isEmpty()) {
                return f.assertions().get(0);
            }
        }
        return in.failures().values().stream()
                .flatMap(f -> f.assertions().stream())
                .findFirst()
                .orElse(null);
    }

    /** One line per defect; a device assert stopped in {@code __assertfail} gets the assertion the job printed. */
    String describe(Defect d, CudaFailure.DeviceAssertion assertion) {
        StringBuilder sb = new StringBuilder(d.tool().id()).append(": ").append(d.message());
        boolean assertRuntime = DeviceAsserts.isAssertRuntime(d.kernel());
        if (assertRuntime && assertion != null) {
            sb.append(": ").append(assertionText(assertion));
        }
        // initcheck, racecheck, synccheck inside PyTorch's own kernel: the library's finding for the job's call, not a
        // fault at the job's line (issue #48, 2); an access error there stays the job's (a bad argument)
        String torchModule = d.kind().isAccessError() || d.kind() == Kind.DEVICE_ASSERT
                ? null
                : policy.frameClassifier().launchingTorchModule(d.hostStack());
        if (d.kernel() != null && !assertRuntime) {
            sb.append(
                    torchModule == null
                            ? " in kernel " + d.kernel()
                            : " inside PyTorch's own kernel " + KernelNames.bare(d.kernel()) + " (" + torchModule
                                    + ")");
        }
        if (d.deviceLocation() != null) {
            sb.append(' ').append(RuntimeKernels.at(d.deviceLocation(), paths));
        }
        if (d.hostLocation() != null) {
            sb.append(torchModule == null ? ", launched from " : ", for the call at ")
                    .append(paths.at(d.hostLocation()));
        }
        if (d.inVendorLibrary()) {
            sb.append(" [in vendor library ").append(d.vendorModule()).append(']');
        }
        if (d.buffer() != null) {
            sb.append(": ").append(d.buffer().summary());
        }
        sb.append(" (").append(d.records()).append(d.records() == 1 ? " record" : " records");
        sb.append(d.error() ? ")" : ", warning level)");
        return sb.toString();
    }
}
