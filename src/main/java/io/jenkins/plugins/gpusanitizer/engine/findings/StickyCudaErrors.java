package io.jenkins.plugins.gpusanitizer.engine.findings;

import java.util.Set;

/**
 * CUDA errors that corrupt the context: once one happens every later call in the process fails with
 * it (CUDA Runtime API, "cudaError" enum: "the process is left in an inconsistent state"). They mean
 * a device fault, so no rule that excuses API errors may ever excuse one of them.
 */
public final class StickyCudaErrors {
    private static final Set<String> NAMES = Set.of(
            "cudaErrorIllegalAddress", // 700
            "cudaErrorLaunchTimeout", // 702
            "cudaErrorAssert", // 710
            "cudaErrorHardwareStackError", // 714
            "cudaErrorIllegalInstruction", // 715
            "cudaErrorMisalignedAddress", // 716
            "cudaErrorInvalidAddressSpace", // 717
            "cudaErrorInvalidPc", // 718
            "cudaErrorLaunchFailure", // 719
            "cudaErrorUnknown", // 999: what a destroyed context often answers
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "CUDA_ERROR_LAUNCH_TIMEOUT",
            "CUDA_ERROR_ASSERT",
            "CUDA_ERROR_HARDWARE_STACK_ERROR",
            "CUDA_ERROR_ILLEGAL_INSTRUCTION",
            "CUDA_ERROR_MISALIGNED_ADDRESS",
            "CUDA_ERROR_INVALID_ADDRESS_SPACE",
            "CUDA_ERROR_INVALID_PC",
            "CUDA_ERROR_LAUNCH_FAILED",
            "CUDA_ERROR_UNKNOWN");

    private StickyCudaErrors() {}

    public static boolean isSticky(String errorName) {
        return errorName != null && NAMES.contains(errorName);
    }

    /** The error name an API-error defect's message starts with ({@code cudaErrorX on CUDA API call to f}). */
    public static String errorOf(Defect d) {
        return d.message() == null ? null : d.message().split(" ", 2)[0];
    }
}
