package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import java.util.List;

/**
 * Stream-capture errors in a sanitizer run made without PyTorch's caching allocator: with
 * {@code PYTORCH_NO_CUDA_MEMORY_CACHING=1} every allocation inside {@code torch.cuda.graph(g)} is a
 * {@code cudaMalloc}, which a capturing stream refuses ({@code cudaErrorStreamCaptureUnsupported}),
 * and the capture ends invalidated ({@code cudaErrorStreamCaptureInvalidated}). The gate's setting
 * caused them, not the job; they are listed, never blamed on the user's line. The run did not check the
 * job past the capture, which the gate reports as an error of its own (see {@code Gate}).
 * Only used for runs known not to have kept the caching allocator.
 */
public final class UncachedCaptureRule implements SuppressionRule {
    public static final String ID = "capture-under-uncached-allocator";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String reason() {
        return "CUDA graph capture broken by the sanitizer phase's own PYTORCH_NO_CUDA_MEMORY_CACHING=1 "
                + "(cudaMalloc inside a capture is not allowed): not a bug in the job";
    }

    @Override
    public boolean matches(Defect d, List<Defect> sameRun) {
        String error = StickyCudaErrors.errorOf(d);
        return d.kind() == Kind.API_ERROR
                && error != null
                && (error.startsWith("cudaErrorStreamCapture") || error.startsWith("CUDA_ERROR_STREAM_CAPTURE"));
    }
}
