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

    /** {@code defect}: the fingerprint of the defect the reason is about, when it is about one. */
    public record ReasonJson(
            String level,
            String code,
            String message,
            @JsonInclude(JsonInclude.Include.NON_NULL) String defect) {
        public ReasonJson(String level, String code, String message) {
            this(level, code, message, null);
        }
    }

    /** {@code file}, {@code line}; {@code function} and {@code code} only when known. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record LocationJson(String file, int line, String function, String code) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record FrameJson(String function, String file, Integer line, String module, boolean python, String role) {}

    public record SuppressionJson(String rule, String reason) {}

    @JsonPropertyOrder({
        "id",
        "tool",
        "kind",
        "severity",
        "message",
        "kernel",
        "records",
        "suppressed",
        "suppressedBy",
        "inVendorLibrary",
        "vendorModule",
        "launcher",
        "deviceLocation",
        "hostLocation",
        "examples",
        "detail",
        "buffer",
        "hostStack",
        "status"
    })
    public record DefectJson(
            String id,
            String tool,
            String kind,
            String severity,
            String message,
            String kernel,
            long records,
            boolean suppressed,
            SuppressionJson suppressedBy,
            boolean inVendorLibrary,
            String vendorModule,
            String launcher,
            LocationJson deviceLocation,
            LocationJson hostLocation,
            List<String> examples,
            String detail,
            @JsonInclude(JsonInclude.Include.NON_NULL) BufferJson buffer,
            List<FrameJson> hostStack,
            String status) {

        /** Without a buffer: the defects of reports written before issue #42, and tests. */
        public DefectJson(
                String id,
                String tool,
                String kind,
                String severity,
                String message,
                String kernel,
                long records,
                boolean suppressed,
                SuppressionJson suppressedBy,
                boolean inVendorLibrary,
                String vendorModule,
                String launcher,
                LocationJson deviceLocation,
                LocationJson hostLocation,
                List<String> examples,
                String detail,
                List<FrameJson> hostStack,
                String status) {
            this(
                    id,
                    tool,
                    kind,
                    severity,
                    message,
                    kernel,
                    records,
                    suppressed,
                    suppressedBy,
                    inVendorLibrary,
                    vendorModule,
                    launcher,
                    deviceLocation,
                    hostLocation,
                    examples,
                    detail,
                    null,
                    hostStack,
                    status);
        }
    }

    /**
     * The buffer a defect's first access ran past (issue #42; docs/how-it-works.md): memcheck's nearest
     * allocation named from the sanitizer run's allocation record. Evidence only: not in the fingerprint.
     *
     * @param placement {@code after}, {@code before}, {@code inside} (misaligned), {@code freed} (inside memory
     *                  the job had freed), {@code unnamed} (memcheck's allocation is none the record names)
     * @param address   the accessed address
     * @param base      the allocation's first byte, or null
     * @param size      its size in bytes, or null
     * @param distance  memcheck's bytes after/before it (1 = the first byte past the end), or the offset inside
     * @param site      the job's line that allocated it, or null
     * @param shape     what the memory held when the job died, e.g. {@code float32 [1600]}, or null
     * @param summary   the one line the reports show
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"placement", "address", "base", "size", "distance", "site", "shape", "summary"})
    public record BufferJson(
            String placement,
            String address,
            String base,
            Long size,
            Long distance,
            LocationJson site,
            String shape,
            @JsonInclude(JsonInclude.Include.NON_NULL) LocationJson freedAt,
            String summary) {}

    public record SanitizerRunJson(
            String tool,
            String recordsFrom,
            String textSource,
            String xmlSource,
            Long errorsTotal,
            Long errorsNotPrinted,
            long recordsParsed,
            int defects,
            int suppressedDefects,
            boolean complete,
            boolean targetReturnedError,
            boolean appCrashed,
            String leakSummary,
            List<String> toolFailures,
            List<String> problems) {}

    public record AssertionJson(
            String file,
            int line,
            String function,
            String condition,
            long count,
            String firstBlock,
            String firstThread) {}

    public record OomJson(
            long triedBytes,
            String gpu,
            long totalBytes,
            long freeBytes,
            long allocatedByPyTorchBytes,
            long reservedUnallocatedBytes) {}

    public record FailureJson(
            String phase,
            String source,
            String errorClass,
            String exceptionType,
            String message,
            boolean asyncWarning,
            boolean dsaNotCompiled,
            LocationJson userFrame,
            List<LocationJson> traceback,
            List<AssertionJson> assertions,
            long assertionLines,
            OomJson oom,
            Integer rank,
            List<RankFailureJson> ranks,
            LauncherJson launcher,
            List<CudaMessageJson> messages,
            LocationJson compiledFrame,
            List<String> generatedFiles,
            LocationJson modelLine) {}

    /** One failing rank's first failure; {@code fromLauncher}: read from the launcher's failure table. */
    public record RankFailureJson(
            int rank,
            String errorClass,
            String exceptionType,
            String message,
            LocationJson userFrame,
            boolean fromLauncher) {}

    /** torchrun's ChildFailedError or mp.spawn's ProcessRaisedException: context, not the fault. */
    public record LauncherJson(
            String kind, String exceptionType, Integer rootCauseRank, String detail, LocationJson userFrame) {}

    /** A CUDA error message printed outside any traceback. */
    public record CudaMessageJson(String stream, long line, Integer rank, String text, String errorClass, long count) {}

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

    /**
     * A watched operator that raised, with its arguments (the probe, blocking phase).
     *
     * @param summary e.g. {@code aten::embedding at train.py:23: index max 5000, weight has 5000 rows}
     */
    public record OperatorEvidenceJson(
            String phase,
            String operator,
            String summary,
            LocationJson site,
            List<LocationJson> stack,
            String rank,
            long pid,
            String exceptionType,
            String message,
            IndexJson index,
            List<TensorArgJson> args) {}

    /** The index (or label) tensor against the size it indexes into; min/max null when not readable. */
    public record IndexJson(
            String name,
            String dtype,
            List<Long> shape,
            Long min,
            Long max,
            Long size,
            String of,
            String unit,
            Long ignoreIndex,
            Boolean outOfRange,
            String statsFrom) {}

    public record TensorArgJson(String name, List<Long> shape, String dtype, String device, boolean index) {}

    /**
     * Live GPU memory by Python allocation site (the probe, regression phase): the top sites at the end
     * (or at the out-of-memory) against the first sample after warm-up.
     */
    public record AllocationSitesJson(
            String phase,
            long pid,
            String rank,
            Double warmupSeconds,
            double endSeconds,
            String endAt,
            long allocatedBytesAtWarmup,
            long allocatedBytesAtEnd,
            long reservedBytesAtEnd,
            int samples,
            boolean growing,
            String summary,
            List<AllocationSiteJson> sites,
            List<SiteSeriesJson> series,
            OomSitesJson oom) {}

    public record AllocationSiteJson(
            LocationJson site,
            List<LocationJson> stack,
            long bytesAtWarmup,
            long blocksAtWarmup,
            long bytesAtEnd,
            long blocksAtEnd,
            long growthBytes) {}

    /** One site's live memory over time: [seconds since the process started, MiB]. */
    public record SiteSeriesJson(String site, List<double[]> points) {}

    /** Where the allocation that ran out of memory was made, and what held the memory then. */
    public record OomSitesJson(
            long pid,
            String rank,
            double seconds,
            LocationJson site,
            List<LocationJson> stack,
            long requestedBytes,
            long deviceFreeBytes,
            String snapshotFile,
            Long snapshotBytes,
            List<AllocationSiteJson> sites,
            String summary) {}

    /**
     * The in-process probe: its state per phase, its problems (notes, never the verdict), and the
     * allocation sites when there was no nvidia-smi curve to attach them to.
     */
    public record ProbeJson(List<ProbePhaseJson> phases, List<String> notes, AllocationSitesJson allocationSites) {}

    public record ProbePhaseJson(
            String phase,
            String file,
            String status,
            int processes,
            long records,
            double probeSeconds,
            Long watchedCalls,
            Long samples,
            List<String> errors) {}

    public record MemoryJson(
            String source,
            String label,
            String gpu,
            String shape,
            double peakMiB,
            double baselineMiB,
            double warmupSeconds,
            double growthMiBPerMin,
            double durationSeconds,
            int samples,
            String description,
            List<double[]> points,
            Double judgedFromSeconds,
            Double judgedToSeconds,
            Double trendMiBPerMin,
            Double memoryTotalMiB,
            Double hoursToFull,
            Double lateRiseMiB,
            MemoryPolicyJson policy,
            AllocationSitesJson allocationSites,
            String basis,
            String basisNote) {}

    /** How a memory curve was judged: growth acts when it would fill the GPU within the horizon. */
    public record MemoryPolicyJson(double minJudgedSeconds, double fillHorizonHours) {}

    /**
     * How the run was made ({@code gpu-sanitize run}); null for {@code analyze}.
     *
     * @param environment  probed versions and the compatibility verdict
     * @param phases       one entry per phase, in the order run
     * @param runDirectory the run directory, relative paths below are inside it
     * @param workDirectory the absolute working directory the phases ran in (the Jenkins workspace, the
     *     checkout root): check annotations are given relative to it; null in records written before it was kept
     */
    public record ExecutionJson(
            EnvironmentJson environment,
            List<PhaseJson> phases,
            String runDirectory,
            Double referenceFailureSeconds,
            String referenceSource,
            Double regressionTargetSeconds,
            ThroughputJson throughput,
            String workDirectory) {}

    public record GpuJson(String index, String name, String uuid, Double memoryTotalMiB) {}

    public record EnvironmentJson(
            String driverVersion,
            String driverCudaVersion,
            List<GpuJson> gpus,
            String nvccVersion,
            String torchVersion,
            String torchCuda,
            String cudnnVersion,
            Boolean torchDsa,
            String computeSanitizerVersion,
            String compatibility,
            List<String> messages) {}

    /**
     * One phase as run.
     *
     * @param ranBeside another phase ran on the same card at the same time (false in records written before it
     *     was kept): the regression run's memory is then judged on its own processes' figures only
     * @param killedPids the processes of the phase its supervisor killed after the main process ended (null in records
     *     written before it was kept: the note then lists them)
     */
    public record PhaseJson(
            String name,
            String tool,
            List<String> command,
            java.util.Map<String, String> environment,
            String gpu,
            String status,
            Integer exitCode,
            Integer signal,
            double wallSeconds,
            Double timeToFailureSeconds,
            boolean timedOut,
            boolean stoppedAtTarget,
            List<String> files,
            String note,
            boolean ranBeside,
            List<Long> killedPids) {
        public PhaseJson(
                String name,
                String tool,
                List<String> command,
                java.util.Map<String, String> environment,
                String gpu,
                String status,
                Integer exitCode,
                Integer signal,
                double wallSeconds,
                Double timeToFailureSeconds,
                boolean timedOut,
                boolean stoppedAtTarget,
                List<String> files,
                String note,
                boolean ranBeside) {
            this(
                    name,
                    tool,
                    command,
                    environment,
                    gpu,
                    status,
                    exitCode,
                    signal,
                    wallSeconds,
                    timeToFailureSeconds,
                    timedOut,
                    stoppedAtTarget,
                    files,
                    note,
                    ranBeside,
                    null);
        }

        /** A phase that had its card to itself. */
        public PhaseJson(
                String name,
                String tool,
                List<String> command,
                java.util.Map<String, String> environment,
                String gpu,
                String status,
                Integer exitCode,
                Integer signal,
                double wallSeconds,
                Double timeToFailureSeconds,
                boolean timedOut,
                boolean stoppedAtTarget,
                List<String> files,
                String note) {
            this(
                    name,
                    tool,
                    command,
                    environment,
                    gpu,
                    status,
                    exitCode,
                    signal,
                    wallSeconds,
                    timeToFailureSeconds,
                    timedOut,
                    stoppedAtTarget,
                    files,
                    note,
                    false);
        }
    }

    /** {@code tolerance}: the accepted drop below the baseline (null in records written before it was kept). */
    public record ThroughputJson(
            String regex, Double baseline, Double measured, Double ratio, int samples, Double tolerance) {}

    /**
     * What one run of the job did (issues #40, #47): the proof that it did the job's work, and the workspace it had.
     *
     * @param counted         the probe counted this run's work (false: no torch process, the probe off or dropped,
     *                        an older record); the figures below are then null
     * @param processes       Python processes that imported torch
     * @param cudaProcesses   of those, the ones that created a CUDA context
     * @param optimizerSteps  optimizer steps all of them took
     * @param allocations     the caching allocator's allocations at exit (null with the allocator off: the sanitizer
     *                        run's, or a process killed)
     * @param workspace       the folder it ran in (its copy of the working directory), null when not isolated
     * @param workspaceChanges paths it created, rewrote or removed there
     * @param bytesWritten    bytes of the files it created or rewrote
     * @param manifest        the list of those changes, relative to the run directory
     * @param backwardPasses  backward passes all of them took (hand-written updates take these and no step); null when
     *                        not counted
     * @param probe           {@code off}, {@code silent} (on, wrote nothing), {@code uncounted} (an older probe) or
     *                        {@code counted}; null in reports written before it was kept
     * @param gpuSeen         nvidia-smi's per-process samples: {@code used}, {@code not-seen}, or null when unknown
     * @param stateOutside    files its processes opened outside its copy of the working directory (the first
     *                        {@value #MAX_STATE_SHOWN})
     * @param end             {@code by-itself} (it ran the job to its end), {@code stopped} (by the gate, on purpose)
     *                        or {@code other}; null in reports written before it was kept
     * @param stoppedAtDefect it stopped at a defect the report names: how much work it did is not judged
     */
    public record WorkJson(
            String run,
            boolean counted,
            int processes,
            Long cudaProcesses,
            Long optimizerSteps,
            Long allocations,
            String workspace,
            Long workspaceChanges,
            Long bytesWritten,
            String manifest,
            Long backwardPasses,
            String probe,
            String gpuSeen,
            List<StateJson> stateOutside,
            String end,
            boolean stoppedAtDefect,
            Long optimizersBuilt,
            Long optimizerStatesLoaded) {
        public static final int MAX_STATE_SHOWN = 20;

        public WorkJson {
            stateOutside = stateOutside == null ? List.of() : List.copyOf(stateOutside);
        }

        /** Whether it did some of the job's work: an optimizer step or a backward pass (false when not counted). */
        public boolean worked() {
            return counted
                    && (optimizerSteps != null && optimizerSteps > 0 || backwardPasses != null && backwardPasses > 0);
        }
    }

    /** A file a run's process opened outside its copy of the working directory ({@code read} or {@code write}). */
    public record StateJson(String event, String path, String where) {}
}
