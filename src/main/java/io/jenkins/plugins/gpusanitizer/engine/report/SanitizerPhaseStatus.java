package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;
import java.util.Objects;

/**
 * compute-sanitizer exits with {@code --error-exitcode} for every error it counts, also for those the
 * gate suppressed as known noise (NCCL probing its kernels at init). A sanitizer phase whose every
 * counted error was printed, grouped and suppressed, and whose target and tool ended normally, did not
 * fail: it is shown as passed, with a note saying why the exit code was ignored.
 */
public final class SanitizerPhaseStatus {
    /** The {@code --error-exitcode} the runner gives compute-sanitizer. */
    public static final int ERROR_EXITCODE = 86;

    private SanitizerPhaseStatus() {}

    static ExecutionJson judge(ExecutionJson execution, List<SanitizerRunJson> runs) {
        if (execution == null || execution.phases() == null || runs == null) {
            return execution;
        }
        List<PhaseJson> phases = execution.phases().stream()
                .map(p -> onlySuppressed(p, runs) ? passed(p) : p)
                .toList();
        return new ExecutionJson(
                execution.environment(),
                phases,
                execution.runDirectory(),
                execution.referenceFailureSeconds(),
                execution.referenceSource(),
                execution.regressionTargetSeconds(),
                execution.throughput(),
                execution.workDirectory());
    }

    private static boolean onlySuppressed(PhaseJson p, List<SanitizerRunJson> runs) {
        if (p.tool() == null || !"failed".equals(p.status()) || !Objects.equals(p.exitCode(), ERROR_EXITCODE)) {
            return false;
        }
        List<SanitizerRunJson> ofTool =
                runs.stream().filter(r -> p.tool().equals(r.tool())).toList();
        if (ofTool.size() != 1) {
            return false;
        }
        SanitizerRunJson r = ofTool.get(0);
        return r.complete()
                && r.defects() > 0
                && r.suppressedDefects() == r.defects()
                && r.errorsTotal() != null
                && r.errorsTotal() == r.recordsParsed()
                && (r.errorsNotPrinted() == null || r.errorsNotPrinted() == 0)
                && !r.targetReturnedError()
                && !r.appCrashed()
                && r.toolFailures().isEmpty();
    }

    private static PhaseJson passed(PhaseJson p) {
        String note = "exit " + ERROR_EXITCODE + " (--error-exitcode) came only from records suppressed as known noise";
        return new PhaseJson(
                p.name(),
                p.tool(),
                p.command(),
                p.environment(),
                p.gpu(),
                "passed",
                p.exitCode(),
                p.signal(),
                p.wallSeconds(),
                p.timeToFailureSeconds(),
                p.timedOut(),
                p.stoppedAtTarget(),
                p.files(),
                p.note() == null ? note : p.note() + "; " + note,
                p.ranBeside());
    }
}
