package io.jenkins.plugins.gpusanitizer.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/** Whether a process still runs, as the fault tests mean it. */
public final class Processes {
    private Processes() {}

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

    /**
     * Whether the process stops running within {@code limit}: /proc looked at every 20 ms up to a deadline (a process
     * that is not this JVM's child gives no event to wait on).
     */
    public static boolean awaitGone(long pid, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (running(pid)) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            LockSupport.parkNanos(20_000_000L);
        }
        return true;
    }

    /**
     * Those of the processes that still run after {@code limit}; returns as soon as none does (at once, where the
     * code under test ended them before it returned). The end of a process this JVM did not start is no event it can
     * wait on (and a zombie ends nothing), so this looks again every 20 ms: a bound, never an order.
     */
    public static List<Long> runningAfter(Duration limit, long... pids) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            List<Long> running = new ArrayList<>();
            for (long pid : pids) {
                if (running(pid)) {
                    running.add(pid);
                }
            }
            if (running.isEmpty() || System.nanoTime() >= deadline) {
                return running;
            }
            Thread.sleep(20);
        }
    }
}
