package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A sanitizer run the runner stopped on purpose (the early stops: enough defects, the print limit): the
 * tool, its target killed under it, writes "Error: couldn't find exit code." before its summary. That
 * line is then what the stop did, not a failure of the tool: an info, not an error. Any other tool
 * failure, and the same line after a timeout or an abort, stays an error.
 */
final class DeliberateStop {
    static final String EXIT_CODE_LOST = "couldn't find exit code";

    private DeliberateStop() {}

    static List<Reason> expected(RunRecord record, List<Reason> gateReasons) {
        Set<String> stopped = stoppedTools(record);
        if (stopped.isEmpty()) {
            return gateReasons;
        }
        List<Reason> out = new ArrayList<>(gateReasons.size());
        for (Reason r : gateReasons) {
            String tool = r.message().contains(" in ")
                    ? r.message().substring(0, r.message().indexOf(" in "))
                    : "";
            if (r.level() == Reason.Level.ERROR
                    && "tool-failure".equals(r.code())
                    && r.message().contains(EXIT_CODE_LOST)
                    && stopped.contains(tool)) {
                out.add(Reason.info(
                        "stopped-target",
                        r.message() + " (expected: the runner stopped the target early, so the tool could not read"
                                + " its exit code)"));
            } else {
                out.add(r);
            }
        }
        return out;
    }

    private static Set<String> stoppedTools(RunRecord record) {
        Set<String> tools = new HashSet<>();
        if (record == null || record.execution() == null || record.execution().phases() == null) {
            return tools;
        }
        for (Report.PhaseJson p : record.execution().phases()) {
            if (p != null
                    && PhaseResult.STOPPED_EARLY.equals(p.status())
                    && PhaseReasons.phaseOf(p) == Phase.SANITIZER
                    && p.tool() != null) {
                tools.add(p.tool());
            }
        }
        return tools;
    }
}
