package io.jenkins.plugins.gpusanitizer.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
}
