package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.probe.CoverageDecision;
import io.jenkins.plugins.gpusanitizer.engine.report.SanitizerPhaseStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * A sanitizer run's coverage stop (issue #49, {@link CoverageMode#KERNELS}): asked for as the run starts
 * ({@value CoverageDecision#FILE} says the mode), decided once the blocking run ended ({@link CoverageDecision#decide}),
 * and handed to the run's probe through {@value CoverageDecision#STOP_FILE}, which it reads at its steps. Polled from
 * the sanitizer run's supervisor, once a second; the decision is made once.
 */
final class CoverageStop {
    /** The probe's variable: the stop file it reads (gpu_sanitize_coverage.py). */
    static final String VARIABLE = "GPU_SANITIZE_COVERAGE_STOP";

    private final Path phaseDir;
    private final Path blockingDir;
    private final BlockingEnd blocking;
    private final ProgressLog progress;
    private final String name;
    private final Set<String> reference;
    private boolean decided;

    private CoverageStop(
            Path phaseDir,
            Path blockingDir,
            BlockingEnd blocking,
            ProgressLog progress,
            String name,
            Set<String> reference) {
        this.phaseDir = phaseDir;
        this.blockingDir = blockingDir;
        this.blocking = blocking;
        this.progress = progress;
        this.name = name;
        this.reference = reference;
    }

    /**
     * Records the mode asked for in the phase folder; in {@code kernels} mode the stop to poll, or null where the run
     * checks the whole job from the start, said in the folder: without the probe nothing can end the job at a step, and
     * a {@code sanitizerCommand} of its own is not the command the blocking run's census describes.
     */
    static CoverageStop start(PhaseContext context, Path phaseDir, String name, boolean probed) throws IOException {
        RunSpec spec = context.spec();
        String whole = spec.coverage() != CoverageMode.KERNELS
                ? null
                : !probed
                        ? "without the probe nothing ends it at a step"
                        : !spec.sanitizerCommand().equals(spec.command())
                                ? "it runs a command of its own (sanitizerCommand), which the blocking run's census"
                                        + " does not describe"
                                : null;
        if (whole != null) {
            CoverageDecision.toEnd(whole).write(phaseDir);
            return null;
        }
        CoverageDecision.asked(spec.coverage()).write(phaseDir);
        return spec.coverage() == CoverageMode.KERNELS
                ? new CoverageStop(
                        phaseDir,
                        context.dir().dir(Phase.BLOCKING.id()),
                        context.blockingEnd(),
                        context.progress(),
                        name,
                        ReferenceBuild.kernels(spec, context.progress()))
                : null;
    }

    Path stopFile() {
        return phaseDir.resolve(CoverageDecision.STOP_FILE);
    }

    /** Decides once the blocking run ended; never throws into the supervisor (a failure is said, and no stop made). */
    synchronized void poll() {
        decide(true);
    }

    /**
     * A run that ended otherwise than by itself (its job died under the tool, {@code targetDied} where the tool's log
     * says so; it timed out or was stopped) before its stop was decided: decided all the same once the blocking run
     * ends, without a stop file. One that had passed the stop then decided had every census kernel checked, as one
     * stopped there would ({@link CoverageReasons}). A run that ended by itself checked the whole job: nothing to decide.
     */
    void afterTheRun(PhaseResult result, boolean targetDied) {
        if (!SanitizerPhaseStatus.jobEndedByItself(result.status(), result.exitCode(), targetDied)) {
            blocking.whenEnded(() -> decide(false));
        }
    }

    private synchronized void decide(boolean runGoing) {
        PhaseResult ended = blocking.result();
        if (decided || ended == null || !runGoing && !Files.isDirectory(phaseDir)) {
            // a run set aside since it ended (its folder renamed: the shared card's out-of-memory, run again alone) is
            // not judged, and its rerun decides for itself
            return;
        }
        decided = true;
        CoverageDecision decision;
        try {
            decision = CoverageDecision.decide(blockingDir, PhaseResult.PASSED.equals(ended.status()), reference);
        } catch (IOException | RuntimeException e) {
            decision = CoverageDecision.toEnd("the blocking run's census could not be read: " + e.getMessage());
        }
        try {
            decision.write(phaseDir, runGoing);
            progress.say(name + (runGoing ? ": " + decision.reason() : " had ended; " + afterTheRun(decision)));
        } catch (IOException e) {
            progress.say(
                    name + ": the coverage stop could not be written, the run checks the whole job: " + e.getMessage());
        }
    }

    /** The decision for a run that has ended, in words that do not tell it to stop. */
    private static String afterTheRun(CoverageDecision decision) {
        if (!decision.stops()) {
            return "its coverage, decided now: " + decision.reason();
        }
        String word = CoverageDecision.word(decision.unit());
        return "its coverage stop, decided now, is the job's " + word + " " + decision.at() + " (the blocking run had"
                + " launched all " + decision.kernels() + " of its kernels by its " + word + " " + (decision.at() - 1)
                + ")";
    }
}
