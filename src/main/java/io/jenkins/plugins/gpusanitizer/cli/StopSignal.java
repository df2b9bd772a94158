package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What CI sends on cancel (SIGTERM from GitLab, GitHub Actions, a shell's kill; SIGINT from Ctrl-C)
 * aborts the run as a timeout does: the runner's thread is interrupted, so it stops the target first,
 * gives compute-sanitizer its write grace, sweeps the phase's processes and writes the report with the
 * partial results. The JVM then exits with the signal's status (143, 130). Without this hook the JVM
 * died at once and left compute-sanitizer and the training job running on the GPU.
 */
final class StopSignal {
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook;
    private volatile boolean signalled;

    private StopSignal(Thread worker, RunSpec spec, PrintWriter console) {
        long waitSeconds = spec.killGraceSeconds() + spec.toolWriteGraceSeconds() + 30L;
        hook = new Thread(
                () -> {
                    signalled = true;
                    if (finished.getCount() == 0) {
                        return;
                    }
                    console.println("[gpu-sanitize] stop signal: aborting the run (the job first, then the tool's "
                            + "write grace); the report is written with what was found");
                    console.flush();
                    worker.interrupt();
                    try {
                        finished.await(waitSeconds, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "gpu-sanitize-stop");
    }

    static StopSignal install(Thread worker, RunSpec spec, PrintWriter console) {
        StopSignal s = new StopSignal(worker, spec, console);
        Runtime.getRuntime().addShutdownHook(s.hook);
        return s;
    }

    /**
     * After {@link #done()}: where a signal started the JVM's shutdown, its status (143, 130) is the exit status, so
     * this thread waits for the halt instead of returning the verdict's code. A {@code System.exit} racing the
     * signal's shutdown could otherwise halt with the verdict's code instead (seen once in CI on a loaded machine:
     * exit 3 for a SIGTERM).
     */
    void leaveTheExitToTheSignal() {
        while (signalled) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // the shutdown halts the JVM; nothing here is to be cut short
            }
        }
    }

    /** The run wrote its report: a signal from now on has nothing left to wait for. */
    void done() {
        finished.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: it returns now that the report is written
        }
    }
}
