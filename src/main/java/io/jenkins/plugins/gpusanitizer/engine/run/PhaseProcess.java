package io.jenkins.plugins.gpusanitizer.engine.run;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleConsumer;

/**
 * Runs one phase's process: its own session (so its group can be signalled), output straight to
 * files (no pumping threads), a timeout, an optional clean stop at a target time, and a kill that
 * leaves nothing behind.
 *
 * <p>The kill order matters for the sanitizer (measured on the H200, corpus cpp-probe/kill):
 * compute-sanitizer writes its --save XML and its summary only when it finishes, and killing it
 * first loses the XML and orphans the target. So the target and everything below the tool go
 * first; the tool then gets a grace period to write; then whatever remains of the session is
 * killed, and a /proc sweep for the phase's cookie catches children that left the tree.
 */
final class PhaseProcess {
    /** How the process ended, before the runner interprets it. */
    record Outcome(String status, Integer exitCode, double wallSeconds, String note) {}

    private final List<String> argv;
    private final Map<String, String> env;
    private final Path workDir;
    private final Path stdout;
    private final Path stderr;
    private final boolean toolWrapsTarget;
    private final int killGraceSeconds;
    private final int toolWriteGraceSeconds;
    private final String cookie;

    PhaseProcess(
            List<String> argv,
            Map<String, String> env,
            Path workDir,
            Path stdout,
            Path stderr,
            boolean toolWrapsTarget,
            int killGraceSeconds,
            int toolWriteGraceSeconds,
            String cookie) {
        this.argv = List.copyOf(argv);
        this.env = new HashMap<>(env);
        this.workDir = workDir;
        this.stdout = stdout;
        this.stderr = stderr;
        this.toolWrapsTarget = toolWrapsTarget;
        this.killGraceSeconds = killGraceSeconds;
        this.toolWriteGraceSeconds = toolWriteGraceSeconds;
        this.cookie = cookie;
    }

    /**
     * @param timeoutSeconds  kill after this long (status timed-out)
     * @param stopAtSeconds   stop cleanly after this long (status stopped-at-target), or null
     * @param progressEvery   seconds between progress callbacks
     * @param progress        called with the elapsed seconds
     */
    Outcome run(double timeoutSeconds, Double stopAtSeconds, int progressEvery, DoubleConsumer progress) {
        return run(timeoutSeconds, stopAtSeconds, progressEvery, progress, () -> null);
    }

    /**
     * @param stopEarly polled with each progress callback: a non-null answer (the reason) ends the
     *                  phase like a timeout does, but as {@code stopped-early}
     */
    Outcome run(
            double timeoutSeconds,
            Double stopAtSeconds,
            int progressEvery,
            DoubleConsumer progress,
            java.util.function.Supplier<String> stopEarly) {
        List<String> full = new ArrayList<>();
        Optional<Path> setsid = setsid();
        setsid.ifPresent(p -> full.add(p.toString()));
        full.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(full)
                .directory(workDir == null ? null : workDir.toFile())
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.environment().put(ProcessTree.COOKIE, cookie);
        long start = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Outcome(PhaseResult.NOT_STARTED, null, 0, "cannot start " + argv.get(0) + ": " + e.getMessage());
        }
        long nextProgress = progressEvery * 1_000_000_000L;
        try {
            while (true) {
                double elapsed = (System.nanoTime() - start) / 1e9;
                double until =
                        Math.min(timeoutSeconds, stopAtSeconds == null ? Double.MAX_VALUE : stopAtSeconds) - elapsed;
                double untilProgress = (nextProgress - (System.nanoTime() - start)) / 1e9;
                long waitMs = (long) Math.max(1, Math.min(until, Math.max(0.05, untilProgress)) * 1000);
                if (p.waitFor(waitMs, TimeUnit.MILLISECONDS)) {
                    double wall = (System.nanoTime() - start) / 1e9;
                    String note = sweep(p.pid(), List.of());
                    int code = p.exitValue();
                    return new Outcome(code == 0 ? PhaseResult.PASSED : PhaseResult.FAILED, code, wall, note);
                }
                elapsed = (System.nanoTime() - start) / 1e9;
                if (stopAtSeconds != null && elapsed >= stopAtSeconds && stopAtSeconds <= timeoutSeconds) {
                    String note = kill(p);
                    return new Outcome(
                            PhaseResult.STOPPED_AT_TARGET,
                            exit(p),
                            (System.nanoTime() - start) / 1e9,
                            join(
                                    "stopped cleanly at the target of " + ProgressLog.seconds(stopAtSeconds) + " s",
                                    note));
                }
                if (elapsed >= timeoutSeconds) {
                    String note = kill(p);
                    return new Outcome(
                            PhaseResult.TIMED_OUT,
                            exit(p),
                            (System.nanoTime() - start) / 1e9,
                            join("killed after the timeout of " + ProgressLog.seconds(timeoutSeconds) + " s", note));
                }
                if (System.nanoTime() - start >= nextProgress) {
                    progress.accept(elapsed);
                    nextProgress += progressEvery * 1_000_000_000L;
                    String why = stopEarly.get();
                    if (why != null) {
                        String note = kill(p);
                        return new Outcome(
                                PhaseResult.STOPPED_EARLY, exit(p), (System.nanoTime() - start) / 1e9, join(why, note));
                    }
                }
            }
        } catch (InterruptedException e) {
            String note = kill(p);
            Thread.currentThread().interrupt();
            return new Outcome(PhaseResult.ABORTED, exit(p), (System.nanoTime() - start) / 1e9, join("aborted", note));
        }
    }

    private static Integer exit(Process p) {
        try {
            return p.waitFor(1, TimeUnit.SECONDS) ? p.exitValue() : null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return p.isAlive() ? null : p.exitValue();
        }
    }

    /** Kills the phase's processes in the order described above; returns what it had to do. */
    String kill(Process root) {
        boolean interrupted = Thread.interrupted();
        try {
            long rootPid = root.pid();
            Set<Long> all = new LinkedHashSet<>(ProcessTree.descendants(rootPid));
            all.addAll(ProcessTree.withCookie(cookie));
            all.remove(rootPid);
            List<String> notes = new ArrayList<>();
            if (toolWrapsTarget && !all.isEmpty()) {
                List<Long> targets = new ArrayList<>(all);
                targets.forEach(pid -> ProcessTree.signal(pid, "TERM"));
                if (!ProcessTree.awaitGone(targets, killGraceSeconds * 1000L)) {
                    targets.stream().filter(ProcessTree::alive).forEach(pid -> ProcessTree.signal(pid, "KILL"));
                    notes.add("target ignored SIGTERM, killed");
                }
                try {
                    if (root.waitFor(toolWriteGraceSeconds, TimeUnit.SECONDS)) {
                        notes.add("compute-sanitizer finished writing after the target was stopped");
                    } else {
                        notes.add("compute-sanitizer did not finish within " + toolWriteGraceSeconds
                                + " s of the target's end");
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (root.isAlive()) {
                long pgid = ProcessTree.pgid(rootPid).orElse(-1L);
                if (pgid == rootPid) {
                    ProcessTree.signalGroup(pgid, "TERM");
                } else {
                    root.destroy();
                }
                List<Long> group = new ArrayList<>(all);
                group.add(rootPid);
                if (!ProcessTree.awaitGone(group, killGraceSeconds * 1000L)) {
                    if (pgid == rootPid) {
                        ProcessTree.signalGroup(pgid, "KILL");
                    }
                    root.destroyForcibly();
                    notes.add("processes ignored SIGTERM, killed");
                }
            }
            String swept = sweep(rootPid, new ArrayList<>(all));
            if (swept != null) {
                notes.add(swept);
            }
            return notes.isEmpty() ? null : String.join("; ", notes);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Kills anything of this phase still alive (children that outlived their parent); null if none. */
    private String sweep(long rootPid, List<Long> known) {
        Set<Long> left = new LinkedHashSet<>(ProcessTree.withCookie(cookie));
        known.stream().filter(ProcessTree::alive).forEach(left::add);
        left.remove(rootPid);
        left.removeIf(pid -> !ProcessTree.alive(pid));
        if (left.isEmpty()) {
            return null;
        }
        left.forEach(pid -> ProcessTree.signal(pid, "KILL"));
        ProcessTree.awaitGone(new ArrayList<>(left), 5000);
        return left.size() + " leftover process(es) of the phase killed";
    }

    private static Optional<Path> setsid() {
        for (String dir : List.of("/usr/bin", "/bin", "/usr/local/bin")) {
            Path p = Path.of(dir, "setsid");
            if (p.toFile().canExecute()) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static String join(String a, String b) {
        return b == null ? a : a + "; " + b;
    }
}
