package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import java.util.List;
import java.util.Set;

/**
 * After a precise device error memcheck terminates the CUDA context, so every later API call fails
 * with the same sticky error ({@code cudaErrorLaunchFailure on cudaFree}, ...). Those records are
 * consequences of the device error in the same run, not bugs of their own.
 */
public final class FollowOnApiErrorRule implements SuppressionRule {
    public static final String ID = "follow-on-api-error";
    private static final Set<String> STICKY = Set.of(
            "cudaErrorLaunchFailure",
            "cudaErrorAssert",
            "cudaErrorIllegalAddress",
            "cudaErrorMisalignedAddress",
            "cudaErrorIllegalInstruction",
            "cudaErrorHardwareStackError",
            "CUDA_ERROR_LAUNCH_FAILED",
            "CUDA_ERROR_ASSERT",
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "CUDA_ERROR_MISALIGNED_ADDRESS");

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String reason() {
        return "sticky CUDA error after a device error in the same run: the sanitizer destroyed the context, later API calls fail";
    }

    @Override
    public boolean matches(Defect d, List<Defect> sameRun) {
        if (d.kind() != Kind.API_ERROR || d.message() == null) {
            return false;
        }
        String error = d.message().split(" ", 2)[0];
        return STICKY.contains(error)
                && sameRun.stream().anyMatch(o -> o.kind().isAccessError() || o.kind() == Kind.DEVICE_ASSERT);
    }
}
