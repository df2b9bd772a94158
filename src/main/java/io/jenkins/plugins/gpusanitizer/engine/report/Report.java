package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
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
    "probe"
})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Report(
        int schemaVersion,
        String generator,
        String verdict,
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
        ProbeJson probe) {

    public static final int SCHEMA_VERSION = 1;

    /** A report without the in-process probe's section (analyze, or a run with the probe off). */
    public Report(
            int schemaVersion,
            String generator,
            String verdict,
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
            List<DefectJson> fixed) {
        this(
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
                null);
    }

    /** The report with how the run was made; phase statuses are judged against the sanitizer runs. */
    public Report withExecution(ExecutionJson e) {
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
                SanitizerPhaseStatus.judge(e, sanitizerRuns),
                inputs,
                reference,
                fixed,
                probe);
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
            List<FrameJson> hostStack,
            String status) {}

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
            AllocationSitesJson allocationSites) {}

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
            boolean ranBeside) {}

    /** {@code tolerance}: the accepted drop below the baseline (null in records written before it was kept). */
    public record ThroughputJson(
            String regex, Double baseline, Double measured, Double ratio, int samples, Double tolerance) {}
}
