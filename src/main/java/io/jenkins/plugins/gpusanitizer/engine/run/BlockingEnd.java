package io.jenkins.plugins.gpusanitizer.engine.run;

/**
 * The blocking run's result once it ended, for the phases beside it: a sanitizer run in coverage mode {@code kernels}
 * waits for it to decide where it ends ({@link CoverageStop}). Set by {@link BlockingPhase} on whichever thread ran it.
 */
final class BlockingEnd {
    private volatile PhaseResult result;

    void ended(PhaseResult value) {
        result = value;
    }

    /** The blocking run's result, or null while it goes on (or never ran). */
    PhaseResult result() {
        return result;
    }
}
