package io.jenkins.plugins.gpusanitizer.engine.run.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.run.PhaseResult;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #26 item 6: a supervisor is alive while its heartbeat changes, timed by the runner's monotonic clock; the
 * heartbeat file's time by the wall clock decides nothing (a clock step made a healthy run "aborted: its supervisor
 * stopped answering"). The runner's clock here is stepped by the test (a quarter second per reading), and the
 * stand-in supervisor is the runner's once-a-second stop check: no real waiting, no threads.
 */
class PhaseProcessHeartbeatTest {
    @TempDir
    Path dir;

    /** A monotonic clock that advances a quarter second each time it is read. */
    private static LongSupplier steppingClock() {
        AtomicLong now = new AtomicLong();
        return () -> now.addAndGet(TimeUnit.MILLISECONDS.toNanos(250));
    }

    private PhaseProcess.Outcome follow(Supplier<String> supervisor) throws Exception {
        Path run = Files.createDirectories(dir.resolve("run"));
        Path phase = Files.createDirectories(run.resolve("phase"));
        Files.writeString(phase.resolve(PhaseProcess.STARTED), "");
        RunLease lease = new RunLease(run, false);
        lease.take();
        PhaseProcess process = new PhaseProcess(
                new LocalProcessStarter(),
                run.resolve("supervise.sh"),
                phase,
                Map.of(),
                null,
                PhaseProcess.Owner.DETACHED,
                lease,
                steppingClock());
        return process.run(
                new PhaseSettings(60, null, false, 1, 1, Processes.cookie("heartbeat-test"), false),
                1,
                elapsed -> {},
                supervisor,
                List.of("true"),
                Map.of(),
                List.of());
    }

    private Path phase() {
        return dir.resolve("run/phase");
    }

    private void beat(int count, Instant fileTime) {
        try {
            Path heartbeat = phase().resolve(PhaseProcess.HEARTBEAT);
            Files.writeString(heartbeat, count + "\n", StandardCharsets.UTF_8);
            Files.setLastModifiedTime(heartbeat, FileTime.from(fileTime));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void exit(String status) {
        try {
            Files.writeString(
                    phase().resolve(PhaseProcess.EXIT_STATUS),
                    "status=" + status + "\nexit=0\nwall=40.00\nnote=\n",
                    StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The wall clock stepped an hour forward: every beat's file time is an hour behind it. The count keeps changing
     * for 40 s of the runner's clock, then the phase ends: it passed.
     */
    @Test
    void aCountingHeartbeatIsAliveWhateverItsFileTimeSays() throws Exception {
        int[] beats = {0};
        Instant anHourAgo = Instant.now().minusSeconds(3600);
        PhaseProcess.Outcome outcome = follow(() -> {
            beats[0]++;
            beat(beats[0], anHourAgo);
            if (beats[0] == 40) {
                exit(PhaseResult.PASSED);
            }
            return null;
        });
        assertThat(beats[0]).as("followed past the stale limit").isGreaterThanOrEqualTo(40);
        assertThat(outcome.status()).isEqualTo(PhaseResult.PASSED);
        assertThat(outcome.note()).isNull();
    }

    /**
     * The other way round: the file time is an hour in the future (the clock stepped back) and the supervisor dies
     * after three beats. It is known for gone 15 s of the runner's clock later, not after the phase's time limit.
     */
    @Test
    void aHeartbeatThatStopsChangingIsADeadSupervisorWhateverItsFileTimeSays() throws Exception {
        int[] beats = {0};
        Instant inAnHour = Instant.now().plusSeconds(3600);
        PhaseProcess.Outcome outcome = follow(() -> {
            beats[0]++;
            if (beats[0] <= 3) {
                beat(beats[0], inAnHour);
            }
            return null;
        });
        assertThat(outcome.status()).isEqualTo(PhaseResult.ABORTED);
        assertThat(outcome.note()).contains("its supervisor stopped answering");
        assertThat(outcome.wallSeconds()).as("15 s after the last change").isBetween(15.0, 25.0);
    }

    /** The real supervisor writes an increasing count each second (what the runner watches change). */
    @Test
    void theSupervisorWritesAnIncreasingCount() throws Exception {
        Path run = dir.resolve("real");
        Path supervisor = PhaseScript.installSupervisor(run);
        Path phase = Files.createDirectories(run.resolve("phase"));
        PhaseScript.writePhase(phase, null, Map.of(), List.of(), List.of("sleep", "1000"));
        PhaseScript.writeConf(
                phase,
                new PhaseSettings(600, null, false, 1, 1, Processes.cookie("count-test"), false)
                        .conf(PhaseProcess.Owner.thisJvm()));
        Process sh = new ProcessBuilder("/bin/sh", supervisor.toString(), phase.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("supervisor.out").toFile())
                .start();
        List<Long> counts = new ArrayList<>();
        try {
            // each write wakes the watch (a truncated file read in between is no count)
            FileWait.changes(phase.resolve(PhaseProcess.HEARTBEAT), Duration.ofMinutes(5), text -> {
                if (text.matches("\\d+")
                        && (counts.isEmpty() || counts.get(counts.size() - 1) != Long.parseLong(text))) {
                    counts.add(Long.parseLong(text));
                }
                return counts.size() >= 3;
            });
        } finally {
            Files.writeString(phase.resolve(PhaseProcess.STOP), "abort\n");
            sh.waitFor(30, TimeUnit.SECONDS);
            sh.destroyForcibly();
        }
        assertThat(counts).hasSize(3).isSorted().doesNotHaveDuplicates();
    }
}
