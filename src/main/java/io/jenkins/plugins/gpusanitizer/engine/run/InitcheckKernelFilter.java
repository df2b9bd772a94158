package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerOptions;
import java.util.List;

/**
 * Why initcheck runs on every kernel (issue #48, 2 and 3). initcheck holds a byte initialized once a kernel it
 * checks, or a cudaMemcpy/cudaMemset, writes it: a kernel left out by {@code --kernel-name-exclude} leaves what it
 * writes uninitialized to the tool, and every checked reader of it is reported. On an H100 (2026-12-07,
 * examples/public/initcheck/scope.sh, records/h100-2026-12-07.md): with PyTorch's kernels left out, a clean job whose
 * CuPy kernel reads torch.randn's output got 117,880 uninitialized reads in its own kernel, and with the API check on
 * its first 2,000 records were cudaMemcpy reading a tensor PyTorch had computed; unfiltered, the same job got 0, and
 * with its mask's tail left unwritten exactly the 40,960 reads of that tail. So the gate passes initcheck no kernel
 * filter (the vendor filter of {@code --exclude-vendor-kernels} applies to the other tools); PyTorch's own records
 * are judged after the run (PyTorchKernelRule). A filter the user passes is said here.
 */
final class InitcheckKernelFilter {
    static final String CODE = "initcheck-kernel-filter";

    private InitcheckKernelFilter() {}

    /** What the report says of an initcheck run whose command filtered kernels (an info reason), or null. */
    static String unchecked(String phaseName, List<String> command) {
        if (!"initcheck".equals(SanitizerOptions.tool(command))) {
            return null;
        }
        for (SanitizerOptions.Option o : SanitizerOptions.of(command)) {
            if (o.name().startsWith("--kernel-name")) {
                return phaseName + " ran with a kernel filter (" + o.text() + "): initcheck did not check the kernels"
                        + " it left out, and what they wrote stays uninitialized to the tool, so a checked kernel"
                        + " reading it is reported as an uninitialized read it is not (on an H100: 117,880 such"
                        + " records in a clean job's own kernel reading a PyTorch result); a pass is not a full check,"
                        + " and an uninitialized read found may be false";
            }
        }
        return null;
    }
}
