package io.jenkins.plugins.gpusanitizer.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

/** Whether a process still runs, as the fault tests mean it. */
public final class Processes {
    private Processes() {}

    /**
     * A phase cookie of this test's own, NAME and a random part. The supervisor sweeps every process of the machine that
     * carries its phase's cookie: with a fixed one, a build beside this one (another clone's tests, or another test
     * of this JVM) sweeps this test's job (a job killed by a SIGTERM that nobody in the test sent). The runner's are
     * random too (a run's UUID).
     */
    public static String cookie(String name) {
        return name + "-" + UUID.randomUUID();
    }

    /**
     * True while the process runs. A zombie does not: it has released its memory and its GPU context
     * and waits only for its parent (here often pid 1, which reaps late) to read its exit status.
     * {@link ProcessHandle#isAlive()} counts zombies as alive.
     */
    public static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String rest = stat.substring(stat.lastIndexOf(')') + 1).trim();
            return !(rest.startsWith("Z") || rest.startsWith("X"));
        } catch (IOException | RuntimeException e) {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
    }

    /** How often /proc is looked at again: a process this JVM did not start gives no event to wait on. */
    private static final long POLL_NANOS = 20_000_000L;

    /** Whether the process stops running within {@code limit} (a bound, never an order). */
    public static boolean awaitGone(long pid, Duration limit) {
        return stillRunning(limit, pid).isEmpty();
    }

    /**
     * Those of the processes that still run after {@code limit}; returns as soon as none does (at once, where the
     * code under test ended them before it returned). A zombie ends nothing: a bound, never an order.
     */
    public static List<Long> runningAfter(Duration limit, long... pids) throws InterruptedException {
        List<Long> running = stillRunning(limit, pids);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while waiting for processes to end");
        }
        return running;
    }

    private static List<Long> stillRunning(Duration limit, long... pids) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            List<Long> running = new ArrayList<>();
            for (long pid : pids) {
                if (running(pid)) {
                    running.add(pid);
                }
            }
            if (running.isEmpty()
                    || System.nanoTime() >= deadline
                    || Thread.currentThread().isInterrupted()) {
                return running;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Whether the command runs and exits 0 here within a minute (a tool or an option this machine may lack). */
    public static boolean succeeds(String... argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs the command with exactly {@code env} as its environment; its output and errors, once it ended (a minute). */
    public static String output(java.util.Map<String, String> env, String... argv)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("still running after a minute: " + String.join(" ", argv) + "\n" + out);
        }
        return out;
    }
}
