package io.jenkins.plugins.gpusanitizer.engine.run.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jenkins.plugins.gpusanitizer.engine.run.ProgressLog;
import io.jenkins.plugins.gpusanitizer.engine.run.Secrets;
import io.jenkins.plugins.gpusanitizer.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/** One build per GPU: real file locks, another real process holding one, threads of one JVM (a Jenkins agent). */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class GpuLockTest {
    @TempDir
    Path dir;

    private final List<String> log = new CopyOnWriteArrayList<>();
    /** Counted down when a run says it waits for a GPU in use: what the tests below wait for, not a sleep. */
    private final CountDownLatch waiting = new CountDownLatch(1);

    private final ProgressLog progress = new ProgressLog(
            line -> {
                log.add(line);
                if (line.contains(" is in use by ")) {
                    waiting.countDown();
                }
            },
            new Secrets(Map.of()));

    private GpuLock take(List<String> gpus, int timeout) throws Exception {
        return GpuLock.take(
                dir.resolve("locks"), gpus, GpuLock.Holder.of(Map.of(), dir.resolve("run")), timeout, progress);
    }

    private Process holder(String gpu) throws Exception {
        Process p = otherProcess(gpu);
        assertThat(firstLine(p)).as("the other process took GPU " + gpu).isEqualTo("taken");
        return p;
    }

    /** What another process gets when it tries for GPU 0 for a second. */
    private String otherProcessTries(String gpu) throws Exception {
        Process p = otherProcess(gpu, "try");
        String line = firstLine(p);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return line;
    }

    private Process otherProcess(String... args) throws Exception {
        List<String> command = ChildJvm.java();
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                GpuLockHolder.class.getName(),
                dir.resolve("locks").toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static String firstLine(Process p) throws Exception {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }

    @Test
    void aGpuHeldByAnotherProcessMakesTheRunWaitSayForWhomAndGiveUpAtTheTimeout() throws Exception {
        Process other = holder("0");
        try {
            assertThatThrownBy(() -> take(List.of("0"), 2))
                    .isInstanceOf(GpuLock.NotTaken.class)
                    .hasMessageContaining("GPU 0 stayed in use by jenkins-other-job-7, gpu-sanitize pid " + other.pid())
                    .hasMessageContaining("timeout of 2 s")
                    .satisfies(e -> assertThat(((GpuLock.NotTaken) e).code).isEqualTo("gpu-lock-timeout"));
            assertThat(log)
                    .anyMatch(l -> l.contains("GPU 0 is in use by jenkins-other-job-7, gpu-sanitize pid " + other.pid())
                            && l.contains("waiting"));
            assertThat(take(List.of("1"), 0))
                    .as("another GPU is free")
                    .isNotNull()
                    .satisfies(GpuLock::close);
        } finally {
            other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** The OS drops the lock with its process: a SIGKILLed run never blocks the next one. */
    @Test
    void theLockOfAKilledProcessIsFreeAtOnce() throws Exception {
        Process other = holder("0");
        new ProcessBuilder("kill", "-KILL", Long.toString(other.pid())).start().waitFor();
        other.waitFor(10, TimeUnit.SECONDS);
        try (GpuLock lock = take(List.of("0"), 0)) { // 0: not waiting at all
            assertThat(dir.resolve("locks/gpu-0.holder.json"))
                    .content()
                    .contains("\"pid\":" + ProcessHandle.current().pid());
        }
    }

    /** Jenkins runs many builds in one agent JVM: a second run there waits too, and goes on once the first releases. */
    @Test
    void twoRunsInOneJvmTakeTurns() throws Exception {
        GpuLock first = take(List.of("0"), 5);
        AtomicReference<Object> second = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try (GpuLock lock = take(List.of("0"), 20)) {
                second.set(lock);
            } catch (Exception e) {
                second.set(e);
            }
        });
        waiter.start();
        assertThat(waiting.await(5, TimeUnit.MINUTES))
                .as("the second run says it waits")
                .isTrue();
        assertThat(second.get()).as("the second run is still waiting").isNull();
        assertThat(log)
                .anyMatch(l -> l.contains("GPU 0 is in use by gpu-sanitize pid "
                        + ProcessHandle.current().pid()));
        first.close();
        waiter.join(300_000);
        assertThat(second.get()).isInstanceOf(GpuLock.class);
        assertThat(log).anyMatch(l -> l.matches(".*GPU 0 taken after \\d+ s of waiting"));
    }

    /**
     * The OS lock belongs to the process, and closing any channel of it on the file drops it: a run of this
     * JVM that waited in vain must not hand the first run's GPU to another process as it gives up.
     */
    @Test
    void aRunOfThisJvmThatGivesUpLeavesTheGpuHeldForOtherProcesses() throws Exception {
        try (GpuLock first = take(List.of("0"), 1)) {
            AtomicReference<Throwable> second = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try (GpuLock l = take(List.of("0"), 1)) {
                    second.set(null);
                } catch (Exception e) {
                    second.set(e);
                }
            });
            t.start();
            t.join(300_000);
            assertThat(second.get()).isInstanceOf(GpuLock.NotTaken.class);
            assertThat(otherProcessTries("0"))
                    .as("another process while the first run still holds GPU 0")
                    .isEqualTo("not taken: gpu-lock-timeout");
        }
        assertThat(otherProcessTries("0")).as("once the first run let go").isEqualTo("taken");
    }

    @Test
    void theHolderFileSaysWhoHoldsTheGpuAndSinceWhen() throws Exception {
        Instant before = Instant.now().minusSeconds(1);
        try (GpuLock lock = take(List.of("0"), 1)) {
            JsonNode holder = new ObjectMapper()
                    .readTree(dir.resolve("locks/gpu-0.holder.json").toFile());
            assertThat(holder.get("pid").asLong())
                    .isEqualTo(ProcessHandle.current().pid());
            assertThat(holder.get("host").asText()).isNotBlank();
            assertThat(holder.has("command"))
                    .as("no command line in a file every user can read (issue #26 item 3)")
                    .isFalse();
            assertThat(holder.get("runDirectory").asText())
                    .isEqualTo(dir.resolve("run").toString());
            assertThat(Instant.parse(holder.get("since").asText())).isAfter(before);
            assertThat(lock.gpus()).containsExactly("0");
            assertThat(lock.directory()).isEqualTo(dir.resolve("locks").toRealPath());
        }
        assertThat(dir.resolve("locks/gpu-0.holder.json"))
                .as("gone with the lock")
                .doesNotExist();
    }

    @Test
    void severalGpusAreTakenAllAndReleasedAll() throws Exception {
        try (GpuLock lock = take(List.of("1", "0", "1"), 1)) {
            assertThat(lock.gpus()).as("sorted, once each").containsExactly("0", "1");
            assertThat(dir.resolve("locks/gpu-0.holder.json")).exists();
            assertThat(dir.resolve("locks/gpu-1.holder.json")).exists();
            AtomicReference<Throwable> other = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try (GpuLock l = take(List.of("1"), 1)) {
                    other.set(null);
                } catch (Exception e) {
                    other.set(e);
                }
            });
            t.start();
            t.join(300_000);
            assertThat(other.get()).isInstanceOf(GpuLock.NotTaken.class);
        }
        assertThat(dir.resolve("locks/gpu-0.holder.json")).doesNotExist();
        try (GpuLock again = take(List.of("0", "1"), 0)) {
            assertThat(again).isNotNull();
        }
    }

    @Test
    void anUnusableLockFolderIsAOneLineErrorNamingIt() throws Exception {
        Files.writeString(dir.resolve("locks"), "a file where the folder should be");
        assertThatThrownBy(() -> take(List.of("0"), 1))
                .isInstanceOf(GpuLock.NotTaken.class)
                .hasMessageContaining(dir.resolve("locks").toString())
                .hasMessageContaining("GPU_SANITIZE_LOCK_DIR")
                .satisfies(e -> assertThat(((GpuLock.NotTaken) e).code).isEqualTo("gpu-lock"))
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void anAbortWhileWaitingEndsTheWait() throws Exception {
        try (GpuLock first = take(List.of("0"), 1)) {
            AtomicReference<Throwable> waited = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try (GpuLock l = take(List.of("0"), 60)) {
                    waited.set(null);
                } catch (Exception e) {
                    waited.set(e);
                }
            });
            t.start();
            assertThat(waiting.await(5, TimeUnit.MINUTES)).as("the run waits").isTrue();
            t.interrupt();
            t.join(300_000);
            assertThat(t.isAlive()).isFalse();
            assertThat(waited.get()).isInstanceOf(InterruptedException.class);
        }
    }

    /** A folder the run creates is its user's alone (a shared one is prepared by an admin: see the tests below). */
    @Test
    void aNewLockFolderIsPrivateToItsUser() throws Exception {
        try (GpuLock lock = take(List.of("0"), 1)) {
            int mode = (Integer) Files.getAttribute(dir.resolve("locks"), "unix:mode");
            assertThat(mode & 0777).isEqualTo(0700);
        }
    }
}
