package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.gate.GateAction;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A sanitizer run the runner stopped on purpose (the early stops: enough defects, the print limit): the
 * tool, its target killed under it, writes "Error: couldn't find exit code." before its summary, or no
 * summary at all (issue #48, 3: initcheck stopped at its 1,000-record print limit on an H100 left none).
 * Both are then what the stop did, not a failure, crash or timeout of the tool: an info and a warning, and the
 * verdict rests on the records it printed. After a timeout or an abort the lost exit code is the cut's too (an info:
 * the run's own timeout or abort error grades it); a missing summary and any other tool failure stay errors.
 */
final class DeliberateStop {
    static final String EXIT_CODE_LOST = "couldn't find exit code";
    /** RunCompleteness's code for a text log without its ERROR SUMMARY. */
    static final String NO_SUMMARY = "incomplete";

    private DeliberateStop() {}

    static List<Reason> expected(RunRecord record, List<Reason> gateReasons) {
        Map<String, String> stopped = stoppedTools(record);
        Map<String, String> cut = cutTools(record);
        if (stopped.isEmpty() && cut.isEmpty()) {
            return gateReasons;
        }
        List<Reason> out = new ArrayList<>(gateReasons.size());
        for (Reason r : gateReasons) {
            String tool = r.message().contains(" in ")
                    ? r.message().substring(0, r.message().indexOf(" in "))
                    : "";
            String summaryTool = r.message().contains(": ")
                    ? r.message().substring(0, r.message().indexOf(": "))
                    : "";
            if (r.level() == Reason.Level.ERROR && NO_SUMMARY.equals(r.code()) && stopped.containsKey(summaryTool)) {
                out.add(Reason.warning(
                        "stopped-no-summary",
                        r.message().replace(INCOMPLETE_WORDS, "")
                                + ": the gate stopped " + summaryTool + " itself ("
                                + stopped.get(summaryTool) + "), and the tool wrote no ERROR SUMMARY after the stop;"
                                + " not a crash or timeout of the tool. The verdict rests on the records it printed;"
                                + " how many errors it counted past them is unknown"));
            } else if (r.level() == Reason.Level.ERROR
                    && "tool-failure".equals(r.code())
                    && r.message().contains(EXIT_CODE_LOST)
                    && (stopped.containsKey(tool) || cut.containsKey(tool))) {
                // after an abort or a timeout the run's own error grades it; the tool did not fail (wlm-lstm on the
                // H100, 2026-12-07: the gate cut by a time limit around it said "tool-failure" as well)
                out.add(Reason.info(
                        "stopped-target",
                        r.message() + " (expected: "
                                + (stopped.containsKey(tool)
                                        ? "the runner stopped the target early"
                                        : "the run was " + cut.get(tool) + ", its target with it")
                                + ", so the tool could not read its exit code)"));
            } else {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * A sanitizer run the gate stopped early whose every printed record was suppressed noise (cuDNN's LSTM kernels
     * under initcheck: 131,072 records on a clean job): the tool checked the job only until the stop, and nothing it
     * found answers for that. Graded as RunCompleteness grades counted errors it could not judge (unprinted-unchecked):
     * UNSTABLE for a tool whose defects fail the build, a warning for the others, and said either way.
     */
    static List<Reason> uncheckedPastTheStop(RunRecord record, Analysis analysis, GatePolicy policy) {
        List<Reason> out = new ArrayList<>();
        if (record == null || record.execution() == null || record.execution().phases() == null) {
            return out;
        }
        for (PhaseJson p : record.execution().phases()) {
            if (p == null
                    || !PhaseResult.STOPPED_EARLY.equals(p.status())
                    || PhaseReasons.phaseOf(p) != Phase.SANITIZER
                    || p.tool() == null) {
                continue;
            }
            List<SanitizerRun> runs = analysis.runs().stream()
                    .filter(r -> r.tool().id().equals(p.tool()))
                    .toList();
            if (runs.stream().mapToLong(SanitizerRun::recordsParsed).sum() == 0
                    || runs.stream().anyMatch(r -> !r.unsuppressed().isEmpty())) {
                continue; // no record at all is another stop's (an unusable environment's), said by its own reason
            }
            String text = p.name() + " was stopped by the gate (" + p.note() + ") and every record it printed is"
                    + " suppressed noise: " + p.tool() + " checked the job only until the stop, the rest of it"
                    + " was not checked by " + p.tool()
                    + ("initcheck".equals(p.tool())
                            // a kernel left out of initcheck makes its output read as uninitialized
                            ? " (raise --print-limit)"
                            : " (raise --print-limit, or leave the noisy kernels out with --kernel-name-exclude)");
            out.add(
                    policy.actionFor(runs.get(0).tool(), true) == GateAction.FAIL
                            ? Reason.unstable("stopped-unchecked", text)
                            : Reason.warning("stopped-unchecked", text));
        }
        return out;
    }

    /** What RunCompleteness says a missing summary means when it cannot know the gate stopped the tool. */
    private static final String INCOMPLETE_WORDS = ": the sanitizer did not finish (killed, timed out or crashed)";

    /** The tools whose sanitizer run the gate stopped early, with the stop's note. */
    private static Map<String, String> stoppedTools(RunRecord record) {
        return sanitizerTools(
                record,
                p -> PhaseResult.STOPPED_EARLY.equals(p.status())
                        ? (p.note() == null ? "stopped early" : p.note())
                        : null);
    }

    /** The tools whose sanitizer run was aborted or timed out, with how ("aborted", "timed out and killed"). */
    private static Map<String, String> cutTools(RunRecord record) {
        return sanitizerTools(
                record,
                p -> PhaseResult.ABORTED.equals(p.status())
                        ? "aborted"
                        : PhaseResult.TIMED_OUT.equals(p.status()) ? "timed out and killed" : null);
    }

    /** Each sanitizer run's tool with what {@code how} says of its phase, where it says something. */
    private static Map<String, String> sanitizerTools(
            RunRecord record, java.util.function.Function<PhaseJson, String> how) {
        Map<String, String> tools = new HashMap<>();
        if (record == null || record.execution() == null || record.execution().phases() == null) {
            return tools;
        }
        for (PhaseJson p : record.execution().phases()) {
            String said =
                    p != null && PhaseReasons.phaseOf(p) == Phase.SANITIZER && p.tool() != null ? how.apply(p) : null;
            if (said != null) {
                tools.put(p.tool(), said);
            }
        }
        return tools;
    }
}
