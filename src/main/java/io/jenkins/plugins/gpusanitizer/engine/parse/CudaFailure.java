package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.List;

/**
 * The failure a PyTorch job printed, read from its stderr.
 *
 * @param source         the file read
 * @param errorClass     what kind of failure
 * @param exceptionType  e.g. {@code torch.AcceleratorError}, or null
 * @param message        the exception message's first line, or null
 * @param asyncWarning   PyTorch printed "CUDA kernel errors might be asynchronously reported": the
 *                       run was not blocking, so its traceback may blame an innocent line
 * @param dsaNotCompiled PyTorch printed "Compile with `TORCH_USE_CUDA_DSA`": no device-side assertions
 * @param frames         the chosen traceback, outermost first (bounded)
 * @param userFrame      the innermost frame in user code (not site-packages, not stdlib, not &lt;frozen&gt;)
 * @param assertions     distinct device-side assertion lines, with counts (bounded)
 * @param assertionLines all device-side assertion lines seen
 * @param oom            the numbers of an out-of-memory error, or null
 */
public record CudaFailure(
        String source,
        CudaErrorClass errorClass,
        String exceptionType,
        String message,
        boolean asyncWarning,
        boolean dsaNotCompiled,
        List<SourceLocation> frames,
        SourceLocation userFrame,
        List<DeviceAssertion> assertions,
        long assertionLines,
        OutOfMemory oom) {
    public CudaFailure {
        frames = List.copyOf(frames);
        assertions = List.copyOf(assertions);
    }

    /** A device-side assertion printed by the GPU, grouped by file, line, function and condition. */
    public record DeviceAssertion(
            String file,
            int line,
            String function,
            String condition,
            long count,
            String firstBlock,
            String firstThread) {}

    /** torch.OutOfMemoryError's numbers, in bytes; -1 when absent. */
    public record OutOfMemory(
            long triedBytes,
            String gpu,
            long totalBytes,
            long freeBytes,
            long allocatedByPyTorchBytes,
            long reservedUnallocatedBytes) {}
}
