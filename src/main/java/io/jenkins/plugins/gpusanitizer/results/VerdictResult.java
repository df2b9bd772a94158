package io.jenkins.plugins.gpusanitizer.results;

import hudson.model.Result;

/**
 * How a verdict lands on the build: PASS leaves it alone; UNSTABLE marks build and stage
 * unstable; FAIL and ERROR fail the step with a one-line reason (ERROR names the tool failure, so a
 * broken agent is never mistaken for a clean kernel).
 */
public record VerdictResult(Result result, boolean abort, String message) {

    public static VerdictResult of(AgentSummary summary, String name) {
        String where = summary.faultAt() == null
                ? ""
                : " at " + summary.faultAt()
                        + (summary.reportedAt() != null && !summary.reportedAt().equals(summary.faultAt())
                                ? " (reported at " + summary.reportedAt() + ")"
                                : "");
        return switch (summary.verdict()) {
            case PASS -> new VerdictResult(Result.SUCCESS, false, name + ": PASS");
            case UNSTABLE ->
                new VerdictResult(Result.UNSTABLE, false, name + ": UNSTABLE: " + shortReason(summary.firstReason()));
            case FAIL ->
                new VerdictResult(
                        Result.FAILURE,
                        true,
                        name + ": FAIL: " + summary.defects() + " GPU defect(s)" + where
                                + (summary.firstReason() == null ? "" : "; " + summary.firstReason()));
            case ERROR ->
                new VerdictResult(
                        Result.FAILURE,
                        true,
                        name + ": ERROR (the GPU tools did not give a usable answer): "
                                + shortReason(summary.firstReason()));
        };
    }

    private static String shortReason(String reason) {
        return reason == null ? "see the report" : reason.length() > 500 ? reason.substring(0, 500) + "..." : reason;
    }
}
