package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.probe.CoverageDecision;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeParser;
import java.nio.file.Path;

/**
 * How far a sanitizer run got against its coverage decision (issue #49): the one answer the coverage reasons, the
 * proof of work and "Kernels checked" each need, from the run's {@value CoverageDecision#FILE}, its probe's records and
 * how it ended.
 *
 * @param decision the runner's decision in its folder, or null (a run from before coverage modes)
 * @param log      its probe's records
 */
public record CoverageReach(Kind kind, CoverageDecision decision, ProbeLog log) {
    /** Where the run ended. */
    public enum Kind {
        /** At the coverage stop the runner decided: its probe's stop records agree with the decision. */
        AT_ITS_STOP,
        /** Its job ran to its end under the tool ({@link SanitizerPhaseStatus#jobEndedByItself}). */
        TO_ITS_END,
        /** It died, timed out or was stopped after the step at which the stop, decided after it ended, was set. */
        PAST_ITS_STOP,
        /** It ended otherwise, short of any known stop: how far it got is not known. */
        SHORT
    }

    /** The run of {@code p} in {@code phaseDir}, its probe's records read there. */
    public static CoverageReach of(Path phaseDir, PhaseJson p, boolean targetDied) {
        return of(phaseDir, p, new ProbeParser().parse(p.name(), phaseDir.resolve(RunLayout.PROBE_JSONL)), targetDied);
    }

    /**
     * @param targetDied the tool's output said its target returned an error or died ({@link
     *     SanitizerPhaseStatus#targetDiedIn})
     */
    public static CoverageReach of(Path phaseDir, PhaseJson p, ProbeLog log, boolean targetDied) {
        CoverageDecision decision = CoverageDecision.read(phaseDir);
        Kind kind;
        if (decision != null && decision.agreesWith(log.coverageStops())) {
            kind = Kind.AT_ITS_STOP;
        } else if (SanitizerPhaseStatus.jobEndedByItself(p.status(), p.exitCode(), targetDied)) {
            kind = Kind.TO_ITS_END;
        } else if (decision != null && decision.passedBeforeItsEnd(log)) {
            kind = Kind.PAST_ITS_STOP;
        } else {
            kind = Kind.SHORT;
        }
        return new CoverageReach(kind, decision, log);
    }

    /** Ended at its stop, or past the one decided after it: on purpose, or as good as. */
    public boolean stoppedOnPurpose() {
        return kind == Kind.AT_ITS_STOP || kind == Kind.PAST_ITS_STOP;
    }
}
