package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.List;

/**
 * initcheck records inside PyTorch's own kernels (issue #48, 2): a correct bf16 transformer gets them by the thousand
 * (699,010 "uninitialized __global__ read" records on the H200, 6,963 on an H100, in at::native's elementwise_kernel
 * of the bias add reading the matmul's output), so they say what an operator does with memory it was handed, not
 * what the job got wrong. Judged by the kernel's launcher (the innermost host frame past the CUDA runtime in
 * libtorch_cuda.so) or, without host frames, by its name in at::native. An uninitialized read in the job's own kernel
 * (CuPy, Triton, an extension: launched from their modules) is not matched and counts. memcheck, racecheck and
 * synccheck records there are not matched either: an access error inside an operator is nearly always the job's bad
 * argument.
 */
public final class PyTorchKernelRule implements SuppressionRule {
    public static final String ID = "pytorch-kernel-initcheck";
    /** The setting that makes them count, named in every suppressed record. */
    public static final String SETTING = "--count-pytorch-kernels (Pipeline step: countPyTorchKernels: true)";

    private final FrameClassifier classifier = FrameClassifier.defaults();

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String reason() {
        return "initcheck record inside PyTorch's own kernel (launched from its library libtorch_cuda.so): an"
                + " operator reading memory it was handed, which a correct job produces by the thousand (a clean bf16"
                + " transformer: hundreds of thousands in the bias add's elementwise_kernel); not counted, since such a"
                + " record does not tell the job's fault from the library's. An uninitialized tensor the job itself"
                + " passes to an operator reads the same way: to count these records, " + SETTING;
    }

    @Override
    public boolean matches(Defect d, List<Defect> sameRun) {
        return d.tool() == Tool.INITCHECK && inPyTorch(d);
    }

    private boolean inPyTorch(Defect d) {
        if (!d.hostStack().isEmpty()) {
            return classifier.launchingTorchModule(d.hostStack()) != null;
        }
        String kernel = d.kernel() == null ? "" : d.kernel();
        return kernel.startsWith("at::native::") || kernel.startsWith("void at::native::");
    }
}
