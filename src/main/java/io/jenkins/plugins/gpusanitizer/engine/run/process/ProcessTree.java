package io.jenkins.plugins.gpusanitizer.engine.run.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Finds and signals a phase's processes on Linux. Every phase runs in a session of its own (via
 * {@code setsid}), and its processes carry a cookie variable, so even children that left the tree
 * (daemonised DataLoader workers, double forks) are found by scanning /proc.
 */
public final class ProcessTree {
    public static final String COOKIE = "GPU_SANITIZE_COOKIE";

    private ProcessTree() {}

    /** The process group of a pid, from /proc/PID/stat (field 5), if readable. */
    public static Optional<Long> pgid(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
            // comm may contain spaces and parentheses: fields start after the last ')'
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Optional.of(Long.parseLong(f[2]));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The start time of a process in clock ticks since boot (/proc/PID/stat field 22), if readable. */
    public static Optional<String> startTime(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return Optional.of(fields[19]);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Live pids whose environment holds {@code COOKIE=value}. */
    public static Set<Long> withCookie(String value) {
        Set<Long> out = new LinkedHashSet<>();
        byte[] needle = (COOKIE + "=" + value + "\0").getBytes(StandardCharsets.UTF_8);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(
                Path.of("/proc"), p -> String.valueOf(p.getFileName()).matches("\\d+"))) {
            for (Path p : ds) {
                try {
                    byte[] env = Files.readAllBytes(p.resolve("environ"));
                    if (contains(env, needle)) {
                        out.add(Long.parseLong(String.valueOf(p.getFileName())));
                    }
                } catch (IOException | SecurityException e) {
                    // gone or not ours
                }
            }
        } catch (IOException e) {
            // no /proc: only the descendants walk is available
        }
        out.remove(ProcessHandle.current().pid());
        return out;
    }

    private static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            if (i > 0 && hay[i - 1] != 0) {
                continue;
            }
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Sends a signal to a whole process group. */
    public static void signalGroup(long pgid, String signal) {
        run("kill", "-s", signal, "--", "-" + pgid);
    }

    public static void signal(long pid, String signal) {
        run("kill", "-s", signal, Long.toString(pid));
    }

    private static void run(String... argv) {
        try {
            Process p = new ProcessBuilder(argv)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // kill missing: fall back to ProcessHandle in callers
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Waits until none of the pids is alive or the time is up; true when all are gone. */
    public static boolean awaitGone(List<Long> pids, long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < end) {
            if (pids.stream().noneMatch(ProcessTree::alive)) {
                return true;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                // keep killing: an abort must not leave processes behind
                Thread.currentThread().interrupt();
                return pids.stream().noneMatch(ProcessTree::alive);
            }
        }
        return pids.stream().noneMatch(ProcessTree::alive);
    }

    public static List<Long> descendants(long pid) {
        List<Long> out = new ArrayList<>();
        ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> out.add(d.pid())));
        return out;
    }
}
