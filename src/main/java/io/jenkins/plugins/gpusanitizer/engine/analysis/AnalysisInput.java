package io.jenkins.plugins.gpusanitizer.engine.analysis;

import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code analyze} reads.
 *
 * @param sanitizer          sanitizer outputs (text and XML)
 * @param jobLogs            the job's error output per phase: {@code async} (the normal run),
 *                           {@code blocking} (CUDA_LAUNCH_BLOCKING=1), others by name
 * @param memoryCsv          nvidia-smi samples of the regression run, or null
 * @param memoryCsvExpandable samples of a run with expandable_segments:True, or null
 * @param cachingAllocator   whether the sanitizer run kept PyTorch's caching allocator; null if unknown
 * @param policy             the gate policy
 * @param lenient            false: unreadable input throws (analyze: the user gave a wrong file);
 *                           true: it becomes an ERROR reason and the rest is still analysed (run:
 *                           the tools wrote it, and nothing may be lost)
 * @param probeLogs          the in-process probe's output per phase it was on in ({@code blocking},
 *                           {@code regression}); a file that does not exist means it wrote nothing
 * @param processMemory      the regression run's per-process memory figures, beside its memory CSV
 * @param workDirectory      the absolute directory the job ran in (run.json's), or null when unknown: the
 *                           report's sentences name the job's files by their path under it
 * @param workspaceCopies    the folder whose subfolders were the runs' copies of the working directory (isolation
 *                           on: the job's frames name files there), or null when the runs worked in it
 */
public record AnalysisInput(
        List<SanitizerInput> sanitizer,
        Map<String, Path> jobLogs,
        Path memoryCsv,
        Path memoryCsvExpandable,
        Boolean cachingAllocator,
        GatePolicy policy,
        boolean lenient,
        Map<String, Path> probeLogs,
        ProcessMemoryInput processMemory,
        String workDirectory,
        String workspaceCopies) {
    public AnalysisInput {
        sanitizer = List.copyOf(sanitizer);
        jobLogs = new LinkedHashMap<>(jobLogs);
        probeLogs = new LinkedHashMap<>(probeLogs == null ? Map.of() : probeLogs);
        processMemory = processMemory == null ? ProcessMemoryInput.NONE : processMemory;
    }

    public AnalysisInput(
            List<SanitizerInput> sanitizer,
            Map<String, Path> jobLogs,
            Path memoryCsv,
            Path memoryCsvExpandable,
            Boolean cachingAllocator,
            GatePolicy policy,
            boolean lenient,
            Map<String, Path> probeLogs) {
        this(
                sanitizer,
                jobLogs,
                memoryCsv,
                memoryCsvExpandable,
                cachingAllocator,
                policy,
                lenient,
                probeLogs,
                ProcessMemoryInput.NONE,
                null,
                null);
    }

    /** How the job's files are named: under the working directory, a run's copy of it being the same. */
    public WorkPaths paths() {
        return WorkPaths.of(workDirectory, workspaceCopies);
    }

    public AnalysisInput(
            List<SanitizerInput> sanitizer,
            Map<String, Path> jobLogs,
            Path memoryCsv,
            Path memoryCsvExpandable,
            Boolean cachingAllocator,
            GatePolicy policy,
            boolean lenient) {
        this(sanitizer, jobLogs, memoryCsv, memoryCsvExpandable, cachingAllocator, policy, lenient, Map.of());
    }

    public AnalysisInput(
            List<SanitizerInput> sanitizer,
            Map<String, Path> jobLogs,
            Path memoryCsv,
            Path memoryCsvExpandable,
            Boolean cachingAllocator,
            GatePolicy policy) {
        this(sanitizer, jobLogs, memoryCsv, memoryCsvExpandable, cachingAllocator, policy, false);
    }
}
