package io.jenkins.plugins.gpusanitizer;

import java.io.Serializable;

/**
 * What the agent sends back to the controller after a run: small, serializable, defined in this
 * plugin (JEP-200). The full report stays in report.json, copied into the build folder.
 */
public record AgentSummary(
        String verdict,
        int defects,
        int suppressed,
        Long errorsTotal,
        String firstReason,
        String diagnosis,
        String reportedAt,
        String faultAt,
        String runDirectory,
        java.util.Map<String, Integer> defectsByTool,
        java.util.List<String> evidence)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    public AgentSummary(
            String verdict,
            int defects,
            int suppressed,
            Long errorsTotal,
            String firstReason,
            String diagnosis,
            String reportedAt,
            String faultAt,
            String runDirectory,
            java.util.Map<String, Integer> defectsByTool) {
        this(
                verdict,
                defects,
                suppressed,
                errorsTotal,
                firstReason,
                diagnosis,
                reportedAt,
                faultAt,
                runDirectory,
                defectsByTool,
                java.util.List.of());
    }
}
