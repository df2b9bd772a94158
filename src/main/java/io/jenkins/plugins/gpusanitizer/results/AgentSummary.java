package io.jenkins.plugins.gpusanitizer.results;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the agent sends back to the controller after a run: small, serializable, defined in this
 * plugin (JEP-200). The full report stays in report.json, copied into the build folder. {@code
 * aborted}: the run was stopped by an abort, the report holds what was found until then. {@code evidence}:
 * the probe's lines for the build page (operator arguments, allocation sites).
 */
public record AgentSummary(
        Verdict verdict,
        int defects,
        int suppressed,
        Long errorsTotal,
        String firstReason,
        String diagnosis,
        String reportedAt,
        String faultAt,
        String runDirectory,
        Map<String, Integer> defectsByTool,
        boolean aborted,
        List<String> evidence)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    public AgentSummary {
        // a plain ArrayList: XStream writes it into build.xml (the JDK's immutable lists it cannot read back)
        evidence = evidence == null ? new ArrayList<>() : new ArrayList<>(evidence);
        // a TreeMap for the same reason (core's class filter admits no JDK immutable map): PersistedClassesTest
        defectsByTool = defectsByTool == null ? null : new TreeMap<>(defectsByTool);
    }

    public AgentSummary(
            Verdict verdict,
            int defects,
            int suppressed,
            Long errorsTotal,
            String firstReason,
            String diagnosis,
            String reportedAt,
            String faultAt,
            String runDirectory,
            Map<String, Integer> defectsByTool) {
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
                false,
                null);
    }

    public AgentSummary(
            Verdict verdict,
            int defects,
            int suppressed,
            Long errorsTotal,
            String firstReason,
            String diagnosis,
            String reportedAt,
            String faultAt,
            String runDirectory,
            Map<String, Integer> defectsByTool,
            boolean aborted) {
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
                aborted,
                null);
    }

    public AgentSummary(
            Verdict verdict,
            int defects,
            int suppressed,
            Long errorsTotal,
            String firstReason,
            String diagnosis,
            String reportedAt,
            String faultAt,
            String runDirectory,
            Map<String, Integer> defectsByTool,
            List<String> evidence) {
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
                false,
                evidence);
    }
}
