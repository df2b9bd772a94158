package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerOptions;
import java.util.List;

/**
 * The vendor libraries' kernels, by the substrings of their names, for compute-sanitizer's {@code
 * --kernel-name-exclude} ({@code --exclude-vendor-kernels}): memcheck then checks the job's own kernels, PyTorch's
 * and Triton's, not cuBLAS's GEMMs, cuDNN's convolutions, NCCL's collectives or the attention kernels, where a
 * transformer spends most of its GPU time. Several {@code kns=} keys in one filter exclude a kernel matching any of
 * them (on the H200, docs/h200-sanitizer-options: cuDNN's LSTM kernels were gone from initcheck's records). initcheck
 * takes none of it since 2026-12-07: what a kernel left out writes reads as uninitialized (InitcheckKernelFilter).
 *
 * <p>What it misses: an out-of-bounds access by one of these kernels, which is nearly always a wrong shape, stride
 * or count the caller passed (a leading dimension of a hand-made GEMM call, an NCCL count larger than the buffer, a
 * strided view handed to an attention kernel); and a kernel of the job's own whose name holds one of the substrings.
 */
final class VendorKernels {
    /**
     * cuBLAS/cuBLASLt ({@code sm90_xmma_gemm_...}, {@code cutlass_80_tensorop_...}, {@code gemv2T_kernel}), cuDNN
     * ({@code cudnn::...}, batch norm, RNN/LSTM, layout transposes), cuFFT, NCCL ({@code ncclDevKernel_...}) and
     * flash / memory-efficient attention ({@code pytorch_flash::flash_fwd_kernel}, {@code fmha_cutlassF_...}).
     */
    static final List<String> SUBSTRINGS = List.of(
            "cublas",
            "xmma",
            "cutlass",
            "gemm",
            "gemv",
            "cudnn",
            "bn_fw",
            "bn_bw",
            "LSTM",
            "RNN",
            "nchwToNhwc",
            "nhwcToNchw",
            "fft",
            "nccl",
            "flash",
            "fmha");

    static final String OPTION = "--kernel-name-exclude";

    private VendorKernels() {}

    /** The one compute-sanitizer argument that excludes them. */
    static String argument() {
        return OPTION + "="
                + String.join(",", SUBSTRINGS.stream().map(s -> "kns=" + s).toList());
    }

    /**
     * Why a sanitizer run whose command filtered kernels is not a full check (an info reason of the report, so a
     * PASS with it is never taken for one), or null for a command without a kernel filter.
     */
    static String unchecked(String phaseName, List<String> command) {
        if (command == null) {
            return null;
        }
        for (SanitizerOptions.Option o : SanitizerOptions.of(command)) {
            if (o.text().equals(argument())) {
                return phaseName + " did not check the vendor libraries' kernels (--exclude-vendor-kernels: cuBLAS,"
                        + " cuDNN, cuFFT, NCCL, flash and memory-efficient attention): an out-of-bounds access inside"
                        + " them — a wrong shape, stride or count passed to the library — was not looked for, nor one"
                        + " in a kernel of the job's own whose name holds " + String.join(", ", SUBSTRINGS)
                        + "; a pass is not a full check";
            }
            if (o.name().startsWith("--kernel-name")) { // -exclude too: the vendor set above, or the user's own filter
                return phaseName + " checked only the kernels its filter left (" + o.text()
                        + "): a pass is not a full check";
            }
        }
        return null;
    }
}
