package io.jenkins.plugins.gpusanitizer.engine.run.process;

import io.jenkins.plugins.gpusanitizer.engine.run.PhaseResult;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One phase's process under its supervisor ({@code supervise.sh}, started through the run's {@link
 * ProcessStarter}): this class writes the phase's script and settings, starts the supervisor, and
 * follows it through files only — {@code heartbeat}, {@code exit.status} — because in a container
 * the processes are not visible from here. Stopping is a request ({@code stop}); the supervisor
 * does the killing, in the order compute-sanitizer needs (measured on the H200, corpus
 * cpp-probe/kill: killing the tool first loses its XML and orphans the target).
 *
 * <p>A phase that was started before (a run resumed after a restart) is followed, not started again.
 */
public final class PhaseProcess {
    /** How the process ended, before the runner interprets it. */
    /**
     * How the phase ended, as the supervisor wrote it.
     *
     * @param killedPids the processes of the phase its sweep killed after the main process ended (exit.status's
     *                   {@code killed=}); empty when none, or when the supervisor wrote no such line
     */
    public record Outcome(String status, Integer exitCode, double wallSeconds, String note, List<Long> killedPids) {
        public Outcome {
            killedPids = killedPids == null ? List.of() : List.copyOf(killedPids);
        }

        public Outcome(String status, Integer exitCode, double wallSeconds, String note) {
            this(status, exitCode, wallSeconds, note, List.of());
        }
    }

    public static final String EXIT_STATUS = "exit.status";
    static final String STOP = "stop";
    /** A stop-at time learned while the phase runs, in centiseconds: the supervisor stops it there (at target). */
    static final String LATE_TARGET = "target";

    static final String HEARTBEAT = "heartbeat";
    /**
     * A supervisor whose heartbeat has not changed for this long, by this JVM's monotonic clock, is gone (it writes
     * a new count into it every second). Not the file's age by the wall clock: a clock step (NTP, a VM resumed)
     * would make a live supervisor look dead, or a dead one live.
     */
    public static final long HEARTBEAT_STALE_MILLIS = 15_000;

    private final ProcessStarter starter;
    private final Path supervisor;
    private final Path phaseDir;
    private final Map<String, String> env;
    private final String workDir;
    private final Owner owner;
    private final RunLease lease;
    /** The monotonic clock, in nanoseconds ({@link System#nanoTime}; a test's own to step). */
    private final LongSupplier clock;
    /** How long a silent supervisor is given before it is taken for gone; tests shorten it. */
    private long silenceMillis = HEARTBEAT_STALE_MILLIS;
    /** The heartbeat as last seen (its count, size and modification time), and when it last changed. */
    private String lastBeat;

    private long lastBeatChange;

    /** Who the supervisor follows: the JVM that started it (it ends the phase when that dies), or nobody. */
    public record Owner(String pid, String startTime) {
        public static final Owner DETACHED = new Owner("", "");

        /** This JVM, with its start time so that a recycled pid is not taken for it. */
        public static Owner thisJvm() {
            String pid = Long.toString(ProcessHandle.current().pid());
            return new Owner(
                    pid, ProcessTree.startTime(ProcessHandle.current().pid()).orElse(""));
        }
    }

    public PhaseProcess(
            ProcessStarter starter,
            Path supervisor,
            Path phaseDir,
            Map<String, String> env,
            String workDir,
            Owner owner,
            RunLease lease) {
        this(starter, supervisor, phaseDir, env, workDir, owner, lease, System::nanoTime);
    }

    PhaseProcess(
            ProcessStarter starter,
            Path supervisor,
            Path phaseDir,
            Map<String, String> env,
            String workDir,
            Owner owner,
            RunLease lease,
            LongSupplier clock) {
        this.clock = clock;
        this.lease = lease;
        this.starter = starter;
        this.supervisor = supervisor;
        this.phaseDir = phaseDir;
        this.env = env;
        this.workDir = workDir;
        this.owner = owner;
    }

    static final String STARTED = "started";

    /** A supervisor whose heartbeat has not changed for this long is gone (default {@link #HEARTBEAT_STALE_MILLIS}). */
    public PhaseProcess silence(long millis) {
        this.silenceMillis = millis;
        return this;
    }

    /**
     * Whether this phase's supervisor was started already (by this run before a restart): the starter
     * said so, or the supervisor's heartbeat shows it (a restart between the two).
     */
    public static boolean started(Path phaseDir) {
        return Files.exists(phaseDir.resolve(STARTED)) || Files.exists(phaseDir.resolve(HEARTBEAT));
    }

    /**
     * Writes the settings, starts the supervisor unless it was started before, and follows it.
     *
     * @param timeoutSeconds  killed after this long (status timed-out)
     * @param stopAtSeconds   stopped cleanly after this long (status stopped-at-target), or null
     * @param toolWrapsTarget compute-sanitizer wraps the job: job first, then the tool's write grace
     * @param progressEvery   seconds between progress callbacks
     * @param progress        called with the elapsed seconds
     * @param stopEarly       polled every second (cheap; a costly check throttles itself): a reason ends the
     *                        phase as stopped-early
     */
    public Outcome run(
            PhaseSettings settings,
            int progressEvery,
            DoubleConsumer progress,
            Supplier<String> stopEarly,
            List<String> argv,
            Map<String, String> set,
            List<String> removed) {
        long begin = clock.getAsLong();
        if (!started(phaseDir)) {
            try {
                PhaseScript.writePhase(phaseDir, workDir, set, removed, argv);
                PhaseScript.writeConf(phaseDir, settings.conf(owner));
                lease.check();
                starter.start(supervisor.toString(), phaseDir.toString(), env, workDir);
                Files.writeString(phaseDir.resolve(STARTED), "", StandardCharsets.UTF_8);
            } catch (IOException e) {
                return new Outcome(
                        PhaseResult.NOT_STARTED, null, 0, "cannot start " + argv.get(0) + ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Outcome(PhaseResult.ABORTED, null, 0, "aborted before it started");
            }
        }
        try {
            return follow(settings, progressEvery, progress, stopEarly, begin);
        } catch (RunLease.Superseded e) {
            throw e; // a resumed runner follows the phase now: it keeps running
        } catch (RuntimeException | Error e) {
            // the runner fails (a bug, a callback that threw): the phase must not run on with nobody following it
            requestStop("abort");
            awaitAfterStop(settings, begin);
            throw e;
        }
    }

    private Outcome follow(
            PhaseSettings settings,
            int progressEvery,
            DoubleConsumer progress,
            Supplier<String> stopEarly,
            long begin) {
        long nextProgress = progressEvery * 1_000_000_000L;
        boolean stopRequested = false;
        lastBeat = null;
        lastBeatChange = begin;
        // the supervisor stops the phase by itself at its limits; this is the bound on waiting for it
        double giveUpAfter = settings.timeoutSeconds()
                + settings.killGraceSeconds() * 2.0
                + settings.toolWriteGraceSeconds()
                + silenceMillis / 1000.0
                + settings.leftoverMaxSeconds()
                + 30;
        long nextLeaseCheck = 0;
        while (true) {
            if (clock.getAsLong() - begin >= nextLeaseCheck) {
                lease.check(); // a resumed runner follows the phase now: step back without stopping it
                nextLeaseCheck += 1_000_000_000L;
                String why = stopRequested ? null : stopEarly.get();
                if (why != null) {
                    requestStop("early " + why);
                    stopRequested = true;
                }
            }
            Optional<Outcome> done = readOutcome();
            if (done.isPresent()) {
                return done.get();
            }
            long now = clock.getAsLong();
            observeBeat(now);
            double elapsed = (now - begin) / 1e9;
            if (elapsed > silenceMillis / 1000.0 && !heartbeatFresh(now)) {
                if (!Files.exists(phaseDir.resolve(HEARTBEAT))) {
                    starter.killAll();
                    return new Outcome(
                            PhaseResult.NOT_STARTED,
                            null,
                            elapsed,
                            "its supervisor never started in " + phaseDir + " (started " + starter.describe()
                                    + "): the run directory must be visible where the job runs; inside a container"
                                    + " put it under the workspace, which the container shares");
                }
                return lost(
                        elapsed, "its supervisor stopped answering (no heartbeat for " + silenceMillis / 1000 + " s)");
            }
            if (elapsed > giveUpAfter) {
                starter.killAll();
                return lost(elapsed, "its supervisor did not end it within its time limit");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                // an abort: ask the supervisor to stop, then wait for it to write what happened
                requestStop("abort");
                Outcome outcome = awaitAfterStop(settings, begin);
                Thread.currentThread().interrupt();
                return outcome;
            }
            if (clock.getAsLong() - begin >= nextProgress) {
                progress.accept(elapsed);
                nextProgress += progressEvery * 1_000_000_000L;
            }
        }
    }

    /** After an abort: the supervisor's kill takes its graces; waits that long, uninterrupted. */
    private Outcome awaitAfterStop(PhaseSettings settings, long begin) {
        long deadline = clock.getAsLong()
                + (long) ((settings.killGraceSeconds() * 2.0 + settings.toolWriteGraceSeconds() + 10) * 1e9);
        while (clock.getAsLong() < deadline) {
            Optional<Outcome> done = readOutcome();
            if (done.isPresent()) {
                return done.get();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                // keep waiting: an abort must not leave processes behind
            }
        }
        starter.killAll();
        return lost((clock.getAsLong() - begin) / 1e9, "aborted; its supervisor did not confirm the stop");
    }

    private Outcome lost(double elapsed, String why) {
        return new Outcome(PhaseResult.ABORTED, null, elapsed, why);
    }

    /**
     * Tells the phase's supervisor to stop it cleanly once it has run this long (at once when it ran longer), status
     * stopped-at-target: a target learned after it started.
     */
    public static void lateTarget(Path phaseDir, double seconds) throws IOException {
        writeWhole(phaseDir, LATE_TARGET, Math.round(seconds * 100) + "\n");
    }

    void requestStop(String request) {
        try {
            writeWhole(phaseDir, STOP, request + "\n");
        } catch (IOException e) {
            starter.killAll();
        }
    }

    /**
     * Writes the file NAME of DIR whole or not at all (written aside, then renamed): the supervisor acts on a
     * request file as soon as it exists, and one created but not yet written (this thread descheduled on a loaded
     * machine) read as a plain abort.
     */
    private static void writeWhole(Path dir, String name, String text) throws IOException {
        Path tmp = dir.resolve(name + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /** Notes the heartbeat as it is now: a change (count, size or modification time, any direction) is a beat. */
    private void observeBeat(long now) {
        String beat = beat();
        if (beat != null && !beat.equals(lastBeat)) {
            lastBeat = beat;
            lastBeatChange = now;
        }
    }

    /**
     * Whether the heartbeat was seen to change within the last {@link #silence} of the monotonic
     * clock (a heartbeat first seen counts as a change). The file's time is compared with nothing, so a wall clock
     * that steps changes no verdict.
     */
    private boolean heartbeatFresh(long now) {
        return lastBeat != null && now - lastBeatChange < silenceMillis * 1_000_000L;
    }

    /** What the heartbeat shows now; null when there is none. */
    private String beat() {
        Path file = phaseDir.resolve(HEARTBEAT);
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            String count = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim();
            return count + "@" + modified.to(TimeUnit.NANOSECONDS);
        } catch (IOException e) {
            return null;
        }
    }

    /** The pids of a {@code killed=} line, space-separated; what is not a pid is left out. */
    static List<Long> pids(String line) {
        List<Long> pids = new java.util.ArrayList<>();
        if (line != null) {
            for (String p : line.trim().split("\\s+")) {
                if (p.matches("[1-9][0-9]{0,9}")) {
                    pids.add(Long.parseLong(p));
                }
            }
        }
        return pids;
    }

    /** The supervisor's result, once written (it is renamed into place whole). */
    Optional<Outcome> readOutcome() {
        Path file = phaseDir.resolve(EXIT_STATUS);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Map<String, String> fields = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    fields.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        String status = fields.getOrDefault("status", PhaseResult.ABORTED);
        Integer exitCode = parseInt(fields.get("exit"));
        double wall = parseDouble(fields.get("wall"));
        String note = fields.get("note");
        return Optional.of(new Outcome(
                status, exitCode, wall, note == null || note.isEmpty() ? null : note, pids(fields.get("killed"))));
    }

    private static Integer parseInt(String text) {
        try {
            return text == null || text.isEmpty() ? null : Integer.valueOf(text.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static double parseDouble(String text) {
        try {
            return text == null ? 0 : Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
