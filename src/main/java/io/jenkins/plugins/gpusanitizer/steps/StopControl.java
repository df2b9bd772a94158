package io.jenkins.plugins.gpusanitizer.steps;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What an abort does to a running {@code gpuSanitize}. workflow-step-api's {@code
 * SynchronousNonBlockingStepExecution.stop} interrupts the step's thread and fails the step at once:
 * the build would end while the agent still kills the job and compute-sanitizer still writes its
 * XML, the copy-back would race it and no report would be attached. Instead, once the run reached the
 * agent: ask the agent to stop (its runner kills the process tree in the order the tool needs and
 * writes the report), let the step's thread copy back and attach what exists, and only then end the
 * step with the abort's cause. Bounded: after the grace the thread is interrupted (the copy-back
 * takes what is there), and a little later the step is failed with the cause whatever happens.
 */
final class StopControl {
    /** After the grace: the interrupted thread copies back and attaches; past this margin the step is ended. */
    static final long LAST_RESORT_MARGIN_SECONDS = 30;

    private final long lastResortMarginSeconds;
    private Throwable cause;
    private Thread worker;
    private boolean onAgent;
    private boolean started;
    private boolean finished;
    private long graceSeconds;
    private Runnable askAgent;

    StopControl() {
        this(LAST_RESORT_MARGIN_SECONDS);
    }

    StopControl(long lastResortMarginSeconds) {
        this.lastResortMarginSeconds = lastResortMarginSeconds;
    }

    /**
     * The step's thread is about to wait for the agent.
     *
     * @param graceSeconds how long the agent may take to stop (kill grace + the tool's write grace + a margin)
     * @param askAgent asks the agent to stop the run (runs on a timer thread, may block on the channel)
     */
    synchronized void onAgent(Thread worker, long graceSeconds, Runnable askAgent) {
        this.worker = worker;
        this.graceSeconds = graceSeconds;
        this.askAgent = askAgent;
        this.onAgent = true;
        this.started = true;
    }

    /** The agent answered (or the wait was interrupted). */
    synchronized void offAgent() {
        onAgent = false;
        worker = null;
    }

    /** The step's thread is done: no interrupt, no last resort any more. */
    synchronized void finished() {
        finished = true;
        onAgent = false;
        worker = null;
    }

    /** The abort's cause once {@link #stop} took charge of it, else null. */
    synchronized Throwable cause() {
        return cause;
    }

    /**
     * An abort.
     *
     * @param lastResort ends the step with the cause (used only when the step's thread did not finish in time)
     * @return false when the caller should stop the step the default way: the run has not reached the agent
     *     yet, the step is over, or this is a second abort (the user insists)
     */
    boolean stop(Throwable cause, ScheduledExecutorService timer, Runnable lastResort) {
        Runnable ask;
        long grace;
        synchronized (this) {
            if (this.cause != null || finished || !started) {
                return false;
            }
            this.cause = cause;
            ask = onAgent ? askAgent : null;
            grace = graceSeconds;
        }
        if (ask != null) {
            timer.execute(ask);
        }
        timer.schedule(this::interruptIfStillOnAgent, grace, TimeUnit.SECONDS);
        timer.schedule(
                () -> {
                    if (!isFinished()) {
                        lastResort.run();
                    }
                },
                grace + lastResortMarginSeconds,
                TimeUnit.SECONDS);
        return true;
    }

    private synchronized boolean isFinished() {
        return finished;
    }

    private synchronized void interruptIfStillOnAgent() {
        if (onAgent && worker != null) {
            worker.interrupt();
        }
    }

    /** The abort's cause as what {@code run()} throws: the step then ends with it (ABORTED for an abort). */
    static Exception asException(Throwable cause) {
        return cause instanceof Exception e ? e : new Exception(cause);
    }
}
