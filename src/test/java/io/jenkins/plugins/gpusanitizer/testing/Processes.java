package io.jenkins.plugins.gpusanitizer.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
}
