package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.probe.CoverageDecision;
import java.io.IOException;
import java.nio.file.Path;

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
    private boolean decided;

    private CoverageStop(Path phaseDir, Path blockingDir, BlockingEnd blocking, ProgressLog progress, String name) {
        this.phaseDir = phaseDir;
        this.blockingDir = blockingDir;
        this.blocking = blocking;
        this.progress = progress;
        this.name = name;
    }

    /**
     * Records the mode asked for in the phase folder; in {@code kernels} mode, with the probe on, the stop to poll
     * (null otherwise: without the probe nothing can end the job at a step, and the run checks all of it).
     */
    static CoverageStop start(
            CoverageMode mode,
            boolean probed,
            Path phaseDir,
            Path blockingDir,
            BlockingEnd blocking,
            ProgressLog progress,
            String name)
            throws IOException {
        if (mode == CoverageMode.KERNELS && !probed) {
            new CoverageDecision(
                            mode.id(),
                            null,
                            null,
                            null,
                            null,
                            "the sanitizer run checks the whole job: without the probe nothing ends it at a step")
                    .write(phaseDir);
            return null;
        }
        CoverageDecision.asked(mode).write(phaseDir);
        return mode == CoverageMode.KERNELS ? new CoverageStop(phaseDir, blockingDir, blocking, progress, name) : null;
    }

    Path stopFile() {
        return phaseDir.resolve(CoverageDecision.STOP_FILE);
    }

    /** Decides once the blocking run ended; never throws into the supervisor (a failure is said, and no stop made). */
    synchronized void poll() {
        PhaseResult ended = blocking.result();
        if (decided || ended == null) {
            return;
        }
        decided = true;
        CoverageDecision decision;
        try {
            decision = CoverageDecision.decide(blockingDir, PhaseResult.PASSED.equals(ended.status()));
        } catch (IOException | RuntimeException e) {
            decision = new CoverageDecision(
                    CoverageMode.KERNELS.id(),
                    null,
                    null,
                    null,
                    null,
                    "the sanitizer run checks the whole job: the blocking run's census could not be read: "
                            + e.getMessage());
        }
        try {
            decision.write(phaseDir);
            progress.say(name + ": " + decision.reason());
        } catch (IOException e) {
            progress.say(
                    name + ": the coverage stop could not be written, the run checks the whole job: " + e.getMessage());
        }
    }
}
