package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.nio.file.Path;

/**
 * The reference failure time the regression run is measured against: given, read from an earlier
 * report, or taken from this run's first phase that failed by itself (blocking, else regression).
 */
final class ReferenceTime {
    private Double failureSeconds;
    private String source;
    private Double regressionTarget;

    /** The time given on the command line or in an earlier report; a report without one is a warning. */
    synchronized void fromSpec(RunSpec spec, RunReasons reasons) {
        if (spec.referenceSeconds() != null) {
            failureSeconds = spec.referenceSeconds();
            source = "given";
        } else if (spec.referenceReport() != null) {
            try {
                Report old = ReportJson.read(Path.of(spec.referenceReport()));
                if (old.execution() != null && old.execution().referenceFailureSeconds() != null) {
                    failureSeconds = old.execution().referenceFailureSeconds();
                    source = "report " + spec.referenceReport();
                } else {
                    reasons.add(Reason.warning(
                            "reference", spec.referenceReport() + " records no failure time; using this run's"));
                }
            } catch (InputException e) {
                reasons.add(Reason.warning("reference", e.getMessage()));
            }
        }
    }

    /** Where this run's own failure times come from (the blocking run's, else the regression run's). */
    static final String BLOCKING = "this run's blocking phase";

    static final String REGRESSION = "this run's regression phase";

    /**
     * Drops a failure time this run's phase offered (a run that failed only because it shared the card, or that runs
     * again with other settings); one given or read from a report, or offered by the other phase, stays.
     */
    synchronized void forget(String from) {
        if (from.equals(source)) {
            failureSeconds = null;
            source = null;
        }
    }

    /** A phase's own failure time, kept when no earlier one is known. */
    synchronized void offer(Double timeToFailure, String from) {
        if (failureSeconds == null && timeToFailure != null) {
            failureSeconds = timeToFailure;
            source = from;
        }
    }

    /**
     * Fixes the regression run's target (given, or the multiple of the failure time) and returns when
     * to stop it: the target, or without one the phase's time limit.
     */
    synchronized double regressionStop(RunSpec spec, int timeoutSeconds) {
        if (spec.regressionSeconds() != null) {
            regressionTarget = spec.regressionSeconds();
        } else if (failureSeconds != null) {
            regressionTarget = spec.regressionMultiple() * failureSeconds;
        }
        return regressionTarget != null ? Math.min(regressionTarget, timeoutSeconds) : timeoutSeconds;
    }

    /**
     * A target learned after the regression run started without one (beside the sanitizer run, before the blocking run
     * failed): the multiple of the blocking run's failure time, now that it is known; null while none is. Kept as the
     * regression target from then on. A given duration or failure time was known at the start: never late.
     */
    synchronized Double lateRegressionTarget(RunSpec spec, int timeoutSeconds) {
        if (regressionTarget == null
                && spec.regressionSeconds() == null
                && failureSeconds != null
                && BLOCKING.equals(source)) {
            regressionTarget = spec.regressionMultiple() * failureSeconds;
            return Math.min(regressionTarget, timeoutSeconds);
        }
        return null;
    }

    synchronized Double failureSeconds() {
        return failureSeconds;
    }

    synchronized String source() {
        return source;
    }

    synchronized Double regressionTarget() {
        return regressionTarget;
    }
}
