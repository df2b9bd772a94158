package io.jenkins.plugins.gpusanitizer.engine.run;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The blocking run's result once it ended, for the phases beside it: a sanitizer run in coverage mode {@code kernels}
 * waits for it to decide where it ends ({@link CoverageStop}), and one that ended first has its stop decided when it
 * ends ({@link #whenEnded}). Set by {@link BlockingPhase} on whichever thread ran it.
 */
final class BlockingEnd {
    private volatile PhaseResult result;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    void ended(PhaseResult value) {
        result = value;
        listeners.forEach(Runnable::run);
    }

    /** The blocking run's result, or null while it goes on (or never ran). */
    PhaseResult result() {
        return result;
    }

    /**
     * Runs {@code then} on the thread that ends the blocking run, or at once where it has ended; it may run twice (an
     * end that comes while it is registered), so it must be idempotent.
     */
    void whenEnded(Runnable then) {
        listeners.add(then);
        if (result != null) {
            then.run();
        }
    }
}
