package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import java.util.List;

/**
 * After a precise device error memcheck terminates the CUDA context, so every later API call fails
 * with the same sticky error ({@code cudaErrorLaunchFailure on cudaFree}, ...). Those records are
 * consequences of the device error in the same run, not bugs of their own.
 */
public final class FollowOnApiErrorRule implements SuppressionRule {
    public static final String ID = "follow-on-api-error";

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
        return StickyCudaErrors.isSticky(StickyCudaErrors.errorOf(d))
                && sameRun.stream().anyMatch(o -> o.kind().isAccessError() || o.kind() == Kind.DEVICE_ASSERT);
    }
}
