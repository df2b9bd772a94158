package io.jenkins.plugins.gpusanitizer.engine.report;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

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

    /**
     * Whether a sanitizer run went its way to the end: it passed, or the tool exited with {@link #ERROR_EXITCODE} for
     * the errors it counted once the job ended. Any other failure is the job's or the tool's death, and a timeout or a
     * stop ended it before its end.
     */
    public static boolean endedByItself(String status, Integer exitCode) {
        return "passed".equals(status) || "failed".equals(status) && Objects.equals(exitCode, ERROR_EXITCODE);
    }

    /**
     * Whether the job under the tool ran to its end: the run ended by itself ({@link #endedByItself(String, Integer)})
     * and the tool's output does not say that its target returned an error or died ({@code targetDied}). A job that
     * died after the tool counted errors (an out-of-memory refused by cudaMalloc, a fault) makes the tool exit with its
     * error code too.
     */
    public static boolean jobEndedByItself(String status, Integer exitCode, boolean targetDied) {
        return endedByItself(status, exitCode) && !targetDied;
    }

    /**
     * The sanitizer runs (by their folder's name: {@code sanitizer-memcheck}) whose tool output said that its target
     * returned an error or died, as the report's {@code sanitizerRuns[]} keep it.
     */
    public static Set<String> targetDiedIn(List<SanitizerRunJson> runs) {
        Set<String> out = new LinkedHashSet<>();
        if (runs != null) {
            for (SanitizerRunJson r : runs) {
                if (r.targetReturnedError() || r.appCrashed()) {
                    out.add(phaseOf(r.textSource() != null ? r.textSource() : r.xmlSource()));
                }
            }
        }
        return out;
    }

    /** The sanitizer run an output file of it belongs to: the name of its folder ({@code sanitizer-memcheck}). */
    public static String phaseOf(String outputFile) {
        if (outputFile == null) {
            return "";
        }
        Path parent = Path.of(outputFile).getParent();
        Path name = parent == null ? null : parent.getFileName();
        return name == null ? "" : name.toString();
    }

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
