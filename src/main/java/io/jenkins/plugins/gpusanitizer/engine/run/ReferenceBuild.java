package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.report.CoverageJson;
import io.jenkins.plugins.gpusanitizer.engine.report.MemoryJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Function;

/**
 * What the reference build's report tells a run before it starts (issue #49): the kernels its plain run launched,
 * against which a new one keeps the whole job under the tool ({@link CoverageStop}), and the most GPU memory its job
 * held, which may start the regression run beside the sanitizer run at once ({@link RegressionPlan#fromReference}).
 * The Jenkins step finds that build on the controller and hands both in ({@link #handTo}); the CLI's {@code
 * --reference} report is read where they are asked for.
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

    /**
     * The kernels the reference build's plain run launched: handed in, else those of the CLI's {@code --reference}
     * report's coverage; null where there is no reference or it cannot be read (said, and the stop decided without it).
     * An empty set: a reference without a census.
     */
    static Set<String> kernels(RunSpec spec, ProgressLog progress) {
        if (spec.referenceKernels() != null) {
            return new LinkedHashSet<>(spec.referenceKernels());
        }
        return fromReport(
                spec,
                progress,
                r -> new LinkedHashSet<>(CoverageJson.kernelNames(r.coverage())),
                "kernels",
                "the coverage stop is decided without them");
    }

    /** The reference's largest memory peak in MiB: handed in, else the CLI report's; null where none is known (said). */
    static Double peakMiB(RunSpec spec, ProgressLog progress) {
        if (spec.referencePeakMiB() != null) {
            return spec.referencePeakMiB();
        }
        return fromReport(
                spec,
                progress,
                r -> MemoryJson.largestPeakMiB(r.memory()),
                "GPU memory",
                "the regression run's place is decided from the card alone");
    }

    /** {@code what} of the CLI's {@code --reference} report, or null without one or where it cannot be read (said). */
    private static <T> T fromReport(
            RunSpec spec, ProgressLog progress, Function<Report, T> what, String name, String without) {
        if (spec.compareWith() == null) {
            return null;
        }
        try {
            return what.apply(ReportJson.read(Path.of(spec.compareWith())));
        } catch (RuntimeException e) { // InputException (an unreadable report) among them
            progress.say("the reference report's " + name + " could not be read (" + e.getMessage() + "); " + without);
            return null;
        }
    }
}
