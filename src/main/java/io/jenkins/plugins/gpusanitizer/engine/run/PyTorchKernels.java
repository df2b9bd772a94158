package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.findings.PyTorchKernelRule;
import java.util.List;

/**
 * PyTorch's own kernels, left out of initcheck's run (issue #48, 2). initcheck floods there on a correct job (1.3
 * million records on a bf16 transformer, 2026-12-04), and once compute-sanitizer has printed its --print-limit records
 * it prints no more: a flood of PyTorch's records hid any later record of the job's own kernels and made the gate
 * stop the run at the limit, or run into its timeout. Excluded at the tool, the job's own kernels (CuPy, Triton,
 * extensions) are checked to the job's end. The filter is compute-sanitizer's {@code kns=}, a substring of the
 * mangled name: {@code _ZN2at6native} starts every kernel in namespace at::native (elementwise, reduction, index and
 * fused-optimizer kernels) and no kernel of another namespace. memcheck keeps checking them.
 */
final class PyTorchKernels {
    static final String CODE = "pytorch-kernels";
    static final String SUBSTRING = "_ZN2at6native";

    private PyTorchKernels() {}

    /** The one compute-sanitizer argument that leaves them out. */
    static String argument() {
        return VendorKernels.OPTION + "=kns=" + SUBSTRING;
    }

    /** What the report says of a run whose command left them out (an info reason), or null. */
    static String unchecked(String phaseName, List<String> command) {
        if (command == null || !command.contains(argument())) {
            return null;
        }
        return phaseName + " did not check PyTorch's own kernels (namespace at::native: its operators' elementwise,"
                + " reduction, index and optimizer kernels): initcheck reports their reads of memory the operator was"
                + " handed by the thousand on a correct job, and would have hidden the job's own kernels' records"
                + " behind them; the job's own kernels (CuPy, Triton, extensions) were checked. An uninitialized"
                + " tensor the job passes to a PyTorch operator was not looked for: to check and count them, "
                + PyTorchKernelRule.SETTING;
    }
}
