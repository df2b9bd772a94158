package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/** {@code operatorEvidence}: the failing operators the probe saw in the blocking phase (empty without it). */
public record DiagnosisJson(
        LocationJson reportedAt,
        LocationJson faultAt,
        String faultEvidence,
        String summary,
        List<String> notes,
        Boolean cachingAllocator,
        List<OperatorEvidenceJson> operatorEvidence) {
    public DiagnosisJson {
        operatorEvidence = operatorEvidence == null ? List.of() : operatorEvidence;
    }
}
