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

    /** A phase's own failure time, kept when no earlier one is known. */
    /** Drops a failure time this run offered (a blocking run that failed only because it shared the card). */
    synchronized void forget() {
        if (source != null && source.startsWith("this run")) {
            failureSeconds = null;
            source = null;
        }
    }

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
