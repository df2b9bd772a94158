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

    /** A summary built field by field; the verdict is required, counts are 0 and the rest absent until set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding all of this summary's fields, to change some and build another. */
    public Builder copy() {
        return new Builder(this);
    }

    /** Builds an {@link AgentSummary}; the fields are the record's. */
    public static final class Builder {
        private Verdict verdict;
        private int defects;
        private int suppressed;
        private Long errorsTotal;
        private String firstReason;
        private String diagnosis;
        private String reportedAt;
        private String faultAt;
        private String runDirectory;
        private Map<String, Integer> defectsByTool = Map.of();
        private boolean aborted;
        private List<String> evidence = List.of();

        private Builder() {}

        private Builder(AgentSummary s) {
            verdict = s.verdict;
            defects = s.defects;
            suppressed = s.suppressed;
            errorsTotal = s.errorsTotal;
            firstReason = s.firstReason;
            diagnosis = s.diagnosis;
            reportedAt = s.reportedAt;
            faultAt = s.faultAt;
            runDirectory = s.runDirectory;
            defectsByTool = s.defectsByTool;
            aborted = s.aborted;
            evidence = s.evidence;
        }

        public Builder verdict(Verdict value) {
            verdict = value;
            return this;
        }

        /** Open (unsuppressed) defects. */
        public Builder defects(int value) {
            defects = value;
            return this;
        }

        public Builder suppressed(int value) {
            suppressed = value;
            return this;
        }

        public Builder errorsTotal(Long value) {
            errorsTotal = value;
            return this;
        }

        public Builder firstReason(String value) {
            firstReason = value;
            return this;
        }

        public Builder diagnosis(String value) {
            diagnosis = value;
            return this;
        }

        public Builder reportedAt(String value) {
            reportedAt = value;
            return this;
        }

        public Builder faultAt(String value) {
            faultAt = value;
            return this;
        }

        public Builder runDirectory(String value) {
            runDirectory = value;
            return this;
        }

        /** Open defects per tool; null as in builds recorded before it was kept. */
        public Builder defectsByTool(Map<String, Integer> value) {
            defectsByTool = value;
            return this;
        }

        public Builder aborted(boolean value) {
            aborted = value;
            return this;
        }

        public Builder evidence(List<String> value) {
            evidence = value;
            return this;
        }

        /** @throws IllegalStateException without a verdict: a summary that says nothing must never read as a pass */
        public AgentSummary build() {
            if (verdict == null) {
                throw new IllegalStateException("an agent summary needs its verdict");
            }
            return new AgentSummary(
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
                    evidence);
        }
    }
}
