package io.jenkins.plugins.gpusanitizer.steps;

import io.jenkins.plugins.gpusanitizer.engine.run.process.LocalProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The agent-side starter of a run that outlives its controller: each start goes through the
 * controller's {@link LauncherStarter} (its launcher decorators put the process into the build's
 * container), which is reachable only while the channel is up. When a start fails because the
 * channel closed (a controller restart, an agent reconnect), the start waits for the next controller
 * to hand over its starter with a poll ({@link #use}), then tries again — unless the process did start
 * and only the answer was lost: its {@code supervisor.log} is there. A start the launcher refused
 * ({@link StartRefused}) fails at once; one that no controller came back for fails after {@link
 * #RECONNECT_WAIT_MINUTES}, and the phase is an error (fail closed), never skipped.
 */
final class ReconnectingStarter implements ProcessStarter {
    /** How long a start waits for a controller to come back. */
    static final long RECONNECT_WAIT_MINUTES =
            Long.getLong(ReconnectingStarter.class.getName() + ".RECONNECT_WAIT_MINUTES", 30);

    /** How often a waiting start looks whether its runner was taken over. */
    private static final long LEASE_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final long waitNanos;
    private ProcessStarter delegate;
    /** The runner's lease check: throws once a resumed runner took the run over. */
    private Runnable leaseCheck = () -> {};
    /** Bumped with every new starter, so a start waits for one newer than the one that failed. */
    private long generation;

    /** @param delegate the controller's exported starter; null: processes start in this JVM (tests, no controller) */
    ReconnectingStarter(ProcessStarter delegate) {
        this(delegate, TimeUnit.MINUTES.toNanos(RECONNECT_WAIT_MINUTES));
    }

    ReconnectingStarter(ProcessStarter delegate, long waitNanos) {
        this.delegate = delegate;
        this.waitNanos = waitNanos;
    }

    boolean delegatesToController() {
        synchronized (this) {
            return delegate != null;
        }
    }

    /**
     * A waiting start gives up the way its runner does when another runner took the run over (it throws
     * the runner's own step-back exception, which leaves the phases running).
     */
    synchronized void checkingLeaseWith(Runnable check) {
        leaseCheck = check;
    }

    /** A controller (back) on the channel: its starter from now on; null changes nothing. */
    synchronized void use(ProcessStarter starter) {
        if (starter != null) {
            delegate = starter;
            generation++;
            notifyAll();
        }
    }

    @Override
    public void start(String script, String directory, Map<String, String> env, String workDir)
            throws IOException, InterruptedException {
        while (true) {
            ProcessStarter current;
            long seen;
            synchronized (this) {
                current = delegate == null ? new LocalProcessStarter() : delegate;
                seen = generation;
            }
            try {
                current.start(script, directory, env, workDir);
                return;
            } catch (StartRefused e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                // an IOException that is not the launcher's refusal is the call's own failure: the channel
                if (e instanceof RuntimeException && !ChannelTrouble.is(e)) {
                    throw e;
                }
                if (Files.exists(Path.of(directory, "supervisor.log"))) {
                    return; // it started; only the answer was lost with the channel
                }
                awaitNewer(seen, e);
            }
        }
    }

    /** Waits for a starter newer than generation {@code seen}, or gives up with the channel's failure. */
    private synchronized void awaitNewer(long seen, Exception lost) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + waitNanos;
        while (generation == seen) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IOException(
                        "the controller did not come back within " + TimeUnit.NANOSECONDS.toMinutes(waitNanos)
                                + " min to start a process of the run (the channel failed: " + lost + ")",
                        lost);
            }
            TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, LEASE_CHECK_NANOS));
            leaseCheck.run();
        }
    }

    @Override
    public void killAll() {
        ProcessStarter current;
        synchronized (this) {
            current = delegate;
        }
        if (current != null) {
            try {
                current.killAll();
            } catch (RuntimeException e) {
                // best effort: the channel may be down; the supervisors also stop on the run's stop file
            }
        }
    }

    @Override
    public String describe() {
        ProcessStarter current;
        synchronized (this) {
            current = delegate;
        }
        try {
            return current == null ? "local" : current.describe();
        } catch (RuntimeException e) {
            return "through the build's launcher (the controller is away)";
        }
    }
}
