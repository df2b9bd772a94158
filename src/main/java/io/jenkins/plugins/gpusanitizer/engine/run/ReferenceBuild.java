package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.report.CoverageJson;
import io.jenkins.plugins.gpusanitizer.engine.report.MemoryJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;

/**
 * What the reference build's report tells a run before it starts (issue #49), handed in by the Jenkins step, which
 * finds that build on the controller (the CLI reads its {@code --reference} report itself): the kernels its plain run
 * launched, against which a new one keeps the whole job under the tool ({@link CoverageStop}), and the most GPU memory
 * its job held, which may start the regression run beside the sanitizer run at once ({@link ReferenceMemory}).
 */
public final class ReferenceBuild {
    private ReferenceBuild() {}

    /** Sets what {@code report} (null: no reference build) says on {@code spec}. */
    public static void handTo(RunSpec spec, Report report) {
        if (report == null) {
            return;
        }
        if (report.coverage() != null) {
            spec.referenceKernels(CoverageJson.kernelNames(report.coverage()));
        }
        spec.referencePeakMiB(MemoryJson.largestPeakMiB(report.memory()));
    }
}
