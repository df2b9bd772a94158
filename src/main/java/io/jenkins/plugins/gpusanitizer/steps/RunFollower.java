package io.jenkins.plugins.gpusanitizer.steps;

import hudson.AbortException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Serializable;

/**
 * The controller's side of a run on the agent, as durable-task's {@code sh} step follows its process:
 * one short {@link #tick} at a time, each a start, a stop request or a poll over the current {@link
 * AgentLink}, the next one scheduled after the delay it returns. Its state is what the Pipeline saves
 * with the step (the run directory, the progress lines already printed, whether a start was sent and a
 * stop asked), so a controller that restarts, or a channel that comes back, goes on from there:
 * an agent that is away is waited for; an agent whose JVM no longer holds the run (it restarted) is
 * told to take it up from the run directory; a start whose answer was lost is sent again as a resume.
 */
final class RunFollower implements Serializable {
    private static final long serialVersionUID = 1L;

    static final long MIN_DELAY_MILLIS = 500;
    static final long MAX_DELAY_MILLIS = 5_000;
    /** While the agent is away: how often to look for it again. */
    static final long AWAY_DELAY_MILLIS = 5_000;

    private final String runDirectory;
    private boolean takeUp;
    private int offset;
    private boolean startSent;
    private boolean stopAsked;
    private boolean stopDelivered;
    private transient long delay;
    private transient String away;

    /**
     * @param takeUp whether the first start takes the run up (an execution that restarted before it knew the
     *     start had been sent) rather than starting it
     */
    RunFollower(String runDirectory, boolean takeUp) {
        this.runDirectory = runDirectory;
        this.takeUp = takeUp;
    }

    String runDirectory() {
        return runDirectory;
    }

    /**
     * After a controller restart: the state saved with the program may predate the start it sent, so a
     * start from now on takes the run up (which starts it in an empty run directory).
     */
    synchronized void resumed() {
        takeUp = true;
        startSent = false;
    }

    /** An abort: the next tick asks the agent to stop the run (again after each take-up), then follows it to its end. */
    synchronized void askToStop() {
        stopAsked = true;
        stopDelivered = false;
    }

    /** What one tick came to: wait and tick again, or the run ended. */
    record Outcome(long delayMillis, AgentProgress ended) {
        static Outcome later(long delayMillis) {
            return new Outcome(delayMillis, null);
        }
    }

    /**
     * One step of following the run.
     *
     * @param link the agent's current link, or null when it is offline
     * @param log  the build log
     * @throws AbortException when the agent refused to start the run (not the channel): the step fails with it
     */
    synchronized Outcome tick(AgentLink link, PrintStream log) throws IOException, InterruptedException {
        if (link == null) {
            return away("the agent is offline or not connected", log);
        }
        try {
            if (!startSent) {
                boolean resume = takeUp;
                // from here on a lost answer is answered by a take-up, never a second start
                takeUp = true;
                startSent = true;
                link.start(resume);
            }
            if (stopAsked && !stopDelivered) {
                link.stop();
                stopDelivered = true;
            }
            AgentProgress progress = link.poll(offset);
            if (away != null) {
                log.println("[gpu-sanitize] " + link.agent() + " answers again: following the run");
                away = null;
            }
            for (String line : progress.lines()) {
                log.println(line);
            }
            switch (progress.state()) {
                case ENDED:
                    offset = progress.nextOffset();
                    return new Outcome(0, progress);
                case UNKNOWN:
                    log.println("[gpu-sanitize] " + link.agent() + " no longer holds the run (its JVM restarted):"
                            + " taking it up from " + runDirectory);
                    link.start(true);
                    offset = 0; // the new runner's lines
                    stopDelivered = false;
                    delay = MIN_DELAY_MILLIS;
                    return Outcome.later(delay);
                default:
                    offset = progress.nextOffset();
                    delay = progress.lines().isEmpty()
                            ? Math.min(MAX_DELAY_MILLIS, Math.max(MIN_DELAY_MILLIS, delay * 3 / 2))
                            : MIN_DELAY_MILLIS;
                    return Outcome.later(delay);
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof AbortException refused) {
                throw refused; // the agent's own answer, not the channel's: trying again would not help
            }
            return away("the call to " + link.agent() + " failed (" + e + ")", log);
        }
    }

    private Outcome away(String why, PrintStream log) {
        if (away == null) {
            log.println("[gpu-sanitize] " + why + "; the run goes on there: waiting for it to answer");
            away = why;
        }
        return Outcome.later(AWAY_DELAY_MILLIS);
    }
}
