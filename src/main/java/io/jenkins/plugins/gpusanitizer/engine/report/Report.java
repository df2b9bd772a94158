package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * The report document (schema version 1, documented in docs/report-schema.md). Field names are the
 * contract with users, the Jenkins layer and exports: add fields, never rename or remove them.
 */
@JsonPropertyOrder({
    "schemaVersion",
    "generator",
    "verdict",
    "reasons",
    "errorsTotal",
    "diagnosis",
    "defects",
    "sanitizerRuns",
    "failures",
    "memory",
    "execution",
    "inputs",
    "reference",
    "fixed",
    "probe",
    "work",
    "coverage"
})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Report(
        int schemaVersion,
        String generator,
        Verdict verdict,
        List<ReasonJson> reasons,
        Long errorsTotal,
        DiagnosisJson diagnosis,
        List<DefectJson> defects,
        List<SanitizerRunJson> sanitizerRuns,
        List<FailureJson> failures,
        List<MemoryJson> memory,
        ExecutionJson execution,
        List<String> inputs,
        String reference,
        List<DefectJson> fixed,
        ProbeJson probe,
        List<WorkJson> work,
        List<CoverageJson> coverage) {

    public static final int SCHEMA_VERSION = 1;

    /** A new report of this schema version: every list empty, every section absent until set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding all of this report's sections, to change some and build another report: a
     * section nobody names is carried over, never dropped (a hand-written copy once lost the probe's).
     */
    public Builder copy() {
        return new Builder(this);
    }

    /** The report with how the run was made; phase statuses are judged against the sanitizer runs. */
    public Report withExecution(ExecutionJson e) {
        return copy().execution(SanitizerPhaseStatus.judge(e, sanitizerRuns)).build();
    }

    /** The report with what each run did ({@link WorkJson}). */
    public Report withWork(List<WorkJson> w) {
        return copy().work(w).build();
    }

    /** The report with which kernels each sanitizer run checked against the plain run's census ({@link CoverageJson}). */
    public Report withCoverage(List<CoverageJson> c) {
        return copy().coverage(c).build();
    }

    /** The report with one more reason after its own, its verdict unchanged (a warning found after the gate). */
    public Report withReason(ReasonJson reason) {
        List<ReasonJson> more = new ArrayList<>(reasons);
        more.add(reason);
        return copy().reasons(more).build();
    }

    /** Builds a {@link Report} section by section; {@link Report#copy()} starts from an existing one. */
    public static final class Builder {
        private int schemaVersion = SCHEMA_VERSION;
        private String generator;
        private Verdict verdict;
        private List<ReasonJson> reasons = List.of();
        private Long errorsTotal;
        private DiagnosisJson diagnosis;
        private List<DefectJson> defects = List.of();
        private List<SanitizerRunJson> sanitizerRuns = List.of();
        private List<FailureJson> failures = List.of();
        private List<MemoryJson> memory = List.of();
        private ExecutionJson execution;
        private List<String> inputs = List.of();
        private String reference;
        private List<DefectJson> fixed = List.of();
        private ProbeJson probe;
        private List<WorkJson> work = List.of();
        private List<CoverageJson> coverage = List.of();

        private Builder() {}

        private Builder(Report r) {
            schemaVersion = r.schemaVersion;
            generator = r.generator;
            verdict = r.verdict;
            reasons = r.reasons;
            errorsTotal = r.errorsTotal;
            diagnosis = r.diagnosis;
            defects = r.defects;
            sanitizerRuns = r.sanitizerRuns;
            failures = r.failures;
            memory = r.memory;
            execution = r.execution;
            inputs = r.inputs;
            reference = r.reference;
            fixed = r.fixed;
            probe = r.probe;
            work = r.work == null ? List.of() : r.work;
            coverage = r.coverage == null ? List.of() : r.coverage;
        }

        public Builder generator(String value) {
            generator = value;
            return this;
        }

        public Builder verdict(Verdict value) {
            verdict = value;
            return this;
        }

        public Builder reasons(List<ReasonJson> value) {
            reasons = value;
            return this;
        }

        public Builder errorsTotal(Long value) {
            errorsTotal = value;
            return this;
        }

        public Builder diagnosis(DiagnosisJson value) {
            diagnosis = value;
            return this;
        }

        public Builder defects(List<DefectJson> value) {
            defects = value;
            return this;
        }

        public Builder sanitizerRuns(List<SanitizerRunJson> value) {
            sanitizerRuns = value;
            return this;
        }

        public Builder failures(List<FailureJson> value) {
            failures = value;
            return this;
        }

        public Builder memory(List<MemoryJson> value) {
            memory = value;
            return this;
        }

        public Builder execution(ExecutionJson value) {
            execution = value;
            return this;
        }

        public Builder inputs(List<String> value) {
            inputs = value;
            return this;
        }

        /** The reference report compared with, by the name it was given. */
        public Builder reference(String value) {
            reference = value;
            return this;
        }

        public Builder fixed(List<DefectJson> value) {
            fixed = value;
            return this;
        }

        /** The in-process probe's section; absent for analyze, or a run with the probe off. */
        public Builder probe(ProbeJson value) {
            probe = value;
            return this;
        }

        /** What each run did on the GPU and in its workspace (issue #40); empty for analyze of outputs alone. */
        public Builder work(List<WorkJson> value) {
            work = value;
            return this;
        }

        /** Each sanitizer run's kernel coverage (issue #49); empty without a census. */
        public Builder coverage(List<CoverageJson> value) {
            coverage = value;
            return this;
        }

        public Report build() {
            return new Report(
                    schemaVersion,
                    generator,
                    verdict,
                    reasons,
                    errorsTotal,
                    diagnosis,
                    defects,
                    sanitizerRuns,
                    failures,
                    memory,
                    execution,
                    inputs,
                    reference,
                    fixed,
                    probe,
                    work,
                    coverage);
        }
    }
}
