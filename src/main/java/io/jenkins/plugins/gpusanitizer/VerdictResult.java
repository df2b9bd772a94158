package io.jenkins.plugins.gpusanitizer;

import hudson.model.Result;

/**
 * How a verdict lands on the build: PASS leaves it alone; UNSTABLE marks build and stage
 * unstable; FAIL and ERROR fail the step with a one-line reason (ERROR names the tool failure, so a
 * broken agent is never mistaken for a clean kernel).
 */
record VerdictResult(Result result, boolean abort, String message) {

    static VerdictResult of(AgentSummary s, String name) {
        String where = s.faultAt() == null
                ? ""
                : " at " + s.faultAt()
                        + (s.reportedAt() != null && !s.reportedAt().equals(s.faultAt())
                                ? " (reported at " + s.reportedAt() + ")"
                                : "");
        return switch (s.verdict()) {
            case "PASS" -> new VerdictResult(Result.SUCCESS, false, name + ": PASS");
            case "UNSTABLE" -> new VerdictResult(Result.UNSTABLE, false, name + ": UNSTABLE: " + nz(s.firstReason()));
            case "FAIL" ->
                new VerdictResult(
                        Result.FAILURE,
                        true,
                        name + ": FAIL: " + s.defects() + " GPU defect(s)" + where
                                + (s.firstReason() == null ? "" : "; " + s.firstReason()));
            default ->
                new VerdictResult(
                        Result.FAILURE,
                        true,
                        name + ": ERROR (the GPU tools did not give a usable answer): " + nz(s.firstReason()));
        };
    }

    private static String nz(String s) {
        return s == null ? "see the report" : s.length() > 500 ? s.substring(0, 500) + "..." : s;
    }
}
