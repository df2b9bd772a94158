package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import java.util.Locale;

/** How a PyTorch/CUDA job died, read from its error output. */
public enum CudaErrorClass {
    ILLEGAL_ADDRESS("an illegal memory access was encountered"),
    DEVICE_ASSERT("device-side assert triggered"),
    MISALIGNED_ADDRESS("misaligned address"),
    LAUNCH_FAILURE("unspecified launch failure"),
    ILLEGAL_INSTRUCTION("an illegal instruction was encountered"),
    OUT_OF_MEMORY("CUDA out of memory"),
    NCCL("NCCL error"),
    OTHER_CUDA("other CUDA error"),
    /** An exception, but not a CUDA one (e.g. a Python error in the job). */
    NON_CUDA("non-CUDA exception"),
    /** No failure found in the output. */
    NONE("no error");

    private final String text;

    CudaErrorClass(String text) {
        this.text = text;
    }

    public String text() {
        return text;
    }

    public String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Errors that mean the kernel touched memory it must not: the gate fails on these. */
    public boolean isMemoryFault() {
        return this == ILLEGAL_ADDRESS
                || this == DEVICE_ASSERT
                || this == MISALIGNED_ADDRESS
                || this == LAUNCH_FAILURE
                || this == ILLEGAL_INSTRUCTION;
    }

    /**
     * Whether a line of a job's error output says the GPU ran out of memory: PyTorch's {@code
     * torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ...} (its caching allocator), and the CUDA error
     * itself where the allocator is off, as under the gate's sanitizer run ({@code torch.AcceleratorError: CUDA
     * error: out of memory} in torch 2.11, {@code RuntimeError: CUDA error: out of memory} before; nanoGPT on the H100,
     * 2026-12-07).
     */
    public static boolean isOutOfMemory(String line) {
        return line != null && outOfMemory(line.toLowerCase(Locale.ROOT));
    }

    private static boolean outOfMemory(String l) {
        return l.contains("cuda out of memory")
                || l.contains("cuda error: out of memory")
                || l.contains("outofmemoryerror")
                || l.contains("cuda_error_out_of_memory")
                || l.contains("cudaerrormemoryallocation");
    }

    /** Classifies one line of error text; null when it says nothing about CUDA. */
    static CudaErrorClass classify(String line) {
        String l = line.toLowerCase(Locale.ROOT);
        if (l.contains("illegal memory access")
                || l.contains("illegal_address")
                || l.contains("cudaerrorillegaladdress")
                // a kernel used an address outside the address space its instruction allows (717)
                || l.contains("invalid_address_space")
                || l.contains("cudaerrorinvalidaddressspace")
                || l.contains("not supported on global/shared address space")) {
            return ILLEGAL_ADDRESS;
        }
        if (l.contains("device-side assert") && !l.contains("to enable device-side assertions")
                || l.contains("cudaerrorassert")
                || l.contains("cuda_error_assert")) {
            return DEVICE_ASSERT;
        }
        if (l.contains("misaligned address")
                || l.contains("cuda_error_misaligned_address")
                || l.contains("cudaerrormisalignedaddress")) {
            return MISALIGNED_ADDRESS;
        }
        if (l.contains("unspecified launch failure")
                || l.contains("cuda_error_launch_failed")
                || l.contains("cudaerrorlaunchfailure")) {
            return LAUNCH_FAILURE;
        }
        if (l.contains("illegal instruction")
                || l.contains("illegal_instruction")
                || l.contains("cudaerrorillegalinstruction")
                || l.contains("invalid program counter")
                || l.contains("cuda_error_invalid_pc")
                || l.contains("cudaerrorinvalidpc")
                || l.contains("hardware stack error")
                || l.contains("cuda_error_hardware_stack_error")) {
            return ILLEGAL_INSTRUCTION;
        }
        if (outOfMemory(l)) {
            return OUT_OF_MEMORY;
        }
        if (l.contains("nccl error")
                || l.contains("ncclunhandledcudaerror")
                || l.contains("ncclinternalerror")
                || l.contains("ncclsystemerror")
                || l.contains("ncclinvalidusage")
                || l.contains("ncclremoteerror")
                || l.contains("distbackenderror")) {
            return NCCL;
        }
        if (l.contains("cuda error") || l.contains("cudaerror") || l.contains("cuda_error_")) {
            return OTHER_CUDA;
        }
        return null;
    }
}
