package io.jenkins.plugins.gpusanitizer.engine.run;

import java.io.IOException;
import java.util.concurrent.Callable;

/** A phase on a thread of its own, beside the scheduler's; an abort interrupts it and waits for its result. */
final class BesideRun implements RegressionBeside.Blocking {
    private final Thread thread;
    private volatile PhaseResult result;
    private volatile Throwable failure;

    BesideRun(Callable<PhaseResult> phase) {
        thread = new Thread(
                () -> {
                    try {
                        result = phase.call();
                    } catch (Throwable e) {
                        failure = e;
                    }
                },
                "gpu-sanitize-beside");
        thread.setDaemon(true);
        thread.start();
    }

    void abort() {
        thread.interrupt();
    }

    @Override
    public boolean awaitEnd(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    @Override
    public PhaseResult ended() {
        return thread.isAlive() ? null : result;
    }

    /** Waits for it (an interrupt of the waiting thread aborts it first); null when it produced nothing. */
    PhaseResult result() throws IOException {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
                thread.interrupt();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure != null) {
            throw new IOException("phase failed: " + failure, failure);
        }
        return result;
    }
}
