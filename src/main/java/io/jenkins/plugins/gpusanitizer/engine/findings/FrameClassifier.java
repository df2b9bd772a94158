package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameOrigin;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Tells the frames of a host stack apart: the CUDA driver/runtime that every launch passes through,
 * vendor libraries (cuDNN, cuBLAS, ...), and the user's own code.
 */
public final class FrameClassifier {
    /** Default vendor libraries: kernels launched from inside them are theirs, not the user's. */
    public static final List<String> DEFAULT_VENDOR_MODULES =
            List.of("libcudnn.*", "libcublas.*", "libcublasLt.*", "libcufft.*", "libcusparse.*", "libnccl.*");

    private static final Pattern DRIVER_MODULE = Pattern.compile("^(libcuda\\.so.*|libcudart.*|libcuda-.*|nvcuda.*)$");
    private static final Pattern RUNTIME_FUNCTION = Pattern.compile(
            "^(cuLaunch.*|cudaLaunch.*|__cudaLaunch.*|__device_stub_.*|libcudart_static_.*|cudaGraphLaunch.*|cuGraphLaunch.*)");
    private static final Pattern SYSTEM_MODULE = Pattern.compile(
            "^(libc\\.so.*|libc-.*|ld-linux.*|libpthread.*|libstdc\\+\\+.*|python\\d*(\\.\\d+)?|libpython.*)$");
    private static final Set<String> INTERPRETER_FUNCTIONS = Set.of("_start", "__libc_start_main", "main");

    private final List<Pattern> vendorModules;

    public FrameClassifier(List<String> vendorModuleRegexes) {
        this.vendorModules = vendorModuleRegexes.stream().map(Pattern::compile).toList();
    }

    public static FrameClassifier defaults() {
        return new FrameClassifier(DEFAULT_VENDOR_MODULES);
    }

    boolean isDriverOrRuntime(Frame f) {
        return !f.python()
                && (DRIVER_MODULE.matcher(f.moduleBaseName()).matches()
                        || f.function() != null
                                && RUNTIME_FUNCTION.matcher(f.function()).matches());
    }

    /** PyTorch's own libraries: a kernel launched from inside them is one of its operators' kernels. */
    private static final Pattern TORCH_MODULE = Pattern.compile("^(libtorch_cuda.*|libc10_cuda.*|libtorch\\.so.*)$");

    /**
     * The PyTorch library whose operator launched the kernel (at::native's elementwise_kernel for an add), or
     * null: judged, as for vendors, by the innermost frame past the driver and runtime of a host stack.
     */
    public String launchingTorchModule(List<Frame> hostStack) {
        for (Frame f : hostStack) {
            if (f.python()) {
                return null;
            }
            if (isDriverOrRuntime(f)) {
                continue;
            }
            String module = f.moduleBaseName();
            return TORCH_MODULE.matcher(module).matches() ? module : null;
        }
        return null;
    }

    /** The vendor library module that launched the kernel, or null: judged by the innermost frame past the driver. */
    public String launchingVendorModule(SanitizerRecord r) {
        for (Frame f : r.hostFrames()) {
            if (f.python()) {
                return null;
            }
            if (isDriverOrRuntime(f)) {
                continue;
            }
            String module = f.moduleBaseName();
            for (Pattern p : vendorModules) {
                if (p.matcher(module).matches()) {
                    return module;
                }
            }
            return null;
        }
        return null;
    }

    /**
     * The host function that launched the kernel: the innermost named native frame past the CUDA
     * driver and runtime (for a device assert inside ATen, the operator, e.g. gather_cuda_kernel's
     * kernel), or null.
     */
    public String launcher(SanitizerRecord r) {
        for (Frame f : r.hostFrames()) {
            if (f.python()) {
                return null;
            }
            if (!isDriverOrRuntime(f) && f.function() != null) {
                return KernelNames.simple(f.function());
            }
        }
        return null;
    }

    public boolean isVendorFrame(Frame f) {
        String module = f.moduleBaseName();
        return vendorModules.stream().anyMatch(p -> p.matcher(module).matches());
    }

    /**
     * The first frame (innermost) in user code: a Python frame outside installed packages when the
     * stack has Python frames, else the first native frame that is not driver, runtime, vendor,
     * libc or the kernel's own host stub.
     */
    public SourceLocation firstUserFrame(SanitizerRecord r, String kernelSimpleName) {
        List<Frame> python = r.pythonFrames();
        boolean skipped = false;
        for (int i = 0; i < python.size(); i++) {
            Frame f = python.get(i);
            if (!FrameOrigin.isUserFile(f.file())) {
                continue; // installed packages, the standard library, Inductor/Triton generated code
            }
            Frame callee = i > 0 ? python.get(i - 1) : null; // innermost first
            if (!skipped
                    && callee != null
                    && FrameOrigin.isCompiledFrame(f.toLocation(), callee.toLocation())
                    && python.subList(i + 1, python.size()).stream().anyMatch(c -> FrameOrigin.isUserFile(c.file()))) {
                skipped = true; // only the innermost: the call of the compiled module also calls into Dynamo
                continue; // a function torch.compile replaced: the user's call of it is the launch site
            }
            return f.toLocation();
        }
        if (!python.isEmpty()) {
            return null;
        }
        for (Frame f : r.hostFrames()) {
            if (f.function() == null
                    || isDriverOrRuntime(f)
                    || isVendorFrame(f)
                    || SYSTEM_MODULE.matcher(f.moduleBaseName()).matches() && !"main".equals(f.function())
                    || simpleFunction(f.function()).equals(kernelSimpleName)
                    || f.function().startsWith("cuda") && f.function().matches("cuda[A-Z]\\w*(<.*>)?(\\(.*\\))?")
                    || f.function().startsWith("cudaError cuda")) {
                continue;
            }
            if (INTERPRETER_FUNCTIONS.contains(f.function()) && !"main".equals(f.function())) {
                continue;
            }
            String file = f.file() != null ? f.file() : f.moduleBaseName();
            return SourceLocation.of(file, f.line(), simpleFunction(f.function()));
        }
        return null;
    }

    /** {@code racy(int*)} and {@code racy} are the same host function: text and XML differ here. */
    static String simpleFunction(String f) {
        return KernelNames.simple(f);
    }
}
