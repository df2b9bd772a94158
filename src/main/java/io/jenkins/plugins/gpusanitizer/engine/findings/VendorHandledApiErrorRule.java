package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import java.util.List;

/**
 * memcheck reports every CUDA API call that returns an error, also the ones a library makes on purpose
 * and handles itself: NCCL probes its kernels at communicator init ({@code ncclInitKernelsForDevice} →
 * {@code cudaFuncGetAttributes}, then {@code cudaGetLastError}) and gets
 * {@code cudaErrorNoKernelImageForDevice} for the architectures it was not built for. When the failing
 * call was made from inside a vendor library (the innermost frame past the CUDA driver and runtime is
 * libnccl, libcublas, ...), the error was returned to that library, not to the user. A sticky error
 * (illegal address, device assert, launch failure, ...) is never excused: it means a device fault.
 */
public final class VendorHandledApiErrorRule implements SuppressionRule {
    public static final String ID = "vendor-handled-api-error";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String reason() {
        return "non-sticky CUDA API error returned to and handled inside a vendor library "
                + "(e.g. NCCL probing its kernels at init: cudaErrorNoKernelImageForDevice on cudaFuncGetAttributes)";
    }

    @Override
    public boolean matches(Defect d, List<Defect> sameRun) {
        return d.kind() == Kind.API_ERROR
                && d.inVendorLibrary()
                && !StickyCudaErrors.isSticky(StickyCudaErrors.errorOf(d));
    }
}
