package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.report.ExecutionJson;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.GpuLock;
import java.util.List;

/**
 * {@code run.json} in the run directory: what the runner did, written after every phase so a crash
 * or an abort still leaves it. {@code analyze --run-dir} reads it back.
 *
 * @param cachingAllocator whether the sanitizer runs kept PyTorch's caching allocator
 * @param expandableSegments whether the regression run used expandable_segments:True
 * @param tools            the sanitizer tools run
 * @param finished         false while the run is still going (or when it died)
 * @param gpuLock          the GPUs the run took exclusively on the machine; null without the lock or
 *                         before it was taken
 */
public record RunRecord(
        int schemaVersion,
        Boolean cachingAllocator,
        boolean expandableSegments,
        List<String> tools,
        boolean finished,
        GpuLockJson gpuLock,
        ExecutionJson execution) {
    /** The GPUs locked ({@link GpuLock}) and the folder of their lock files. */
    public record GpuLockJson(List<String> gpus, String directory) {}
}
