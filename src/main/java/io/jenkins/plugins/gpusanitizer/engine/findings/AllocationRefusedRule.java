package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import java.util.List;
import java.util.Set;

/**
 * memcheck reports an allocation the card refused ({@code cudaErrorMemoryAllocation} on {@code cudaMalloc}) as an
 * API error. It is no memory access: nothing was read or written out of bounds, the call returned an error to its
 * caller (PyTorch's allocator frees its cache and tries again, then raises {@code torch.OutOfMemoryError}). Blamed
 * as a defect it failed a clean job: karpathy/nanoGPT under the tool (issue #48, 1). The out-of-memory itself is
 * judged from the job's own output (the {@code oom} reason, and {@code sanitizer-only-oom} when only the run under
 * the tool ran out).
 */
public final class AllocationRefusedRule implements SuppressionRule {
    public static final String ID = "allocation-refused";

    private static final Set<String> OUT_OF_MEMORY = Set.of("cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY");

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String reason() {
        return "an allocation the card refused (out of GPU memory), returned to its caller: not a memory access; the"
                + " run's out-of-memory is judged from the job's own output";
    }

    @Override
    public boolean matches(Defect d, List<Defect> sameRun) {
        return d.kind() == Kind.API_ERROR && OUT_OF_MEMORY.contains(StickyCudaErrors.errorOf(d));
    }
}
