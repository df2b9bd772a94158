package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.report.MemoryJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.nio.file.Path;

/**
 * The GPU memory the reference build's job needed (issue #49): the largest peak of its report's curves, handed in by
 * the Jenkins step (its reference build) or read from the CLI's {@code --reference} report. With it the regression run
 * may start beside the sanitizer run at once, where the card has room for that job three times over
 * ({@link RegressionPlan#fromReference}), instead of watching the first runs' memory for seconds.
 */
final class ReferenceMemory {
    private ReferenceMemory() {}

    /** The reference's peak in MiB, or null where there is none or it cannot be read (said). */
    static Double peakMiB(RunSpec spec, ProgressLog progress) {
        if (spec.referencePeakMiB() != null) {
            return spec.referencePeakMiB();
        }
        if (spec.compareWith() == null) {
            return null;
        }
        try {
            return MemoryJson.largestPeakMiB(
                    ReportJson.read(Path.of(spec.compareWith())).memory());
        } catch (RuntimeException e) { // InputException (an unreadable report) among them
            progress.say("the reference report's GPU memory could not be read (" + e.getMessage()
                    + "); the regression run's place is decided from the card alone");
            return null;
        }
    }
}
