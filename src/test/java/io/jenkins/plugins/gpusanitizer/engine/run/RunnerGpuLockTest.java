package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.GpuLock;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/** The runner takes its GPUs before any phase and gives them back on every way out. */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class RunnerGpuLockTest {
    @TempDir
    Path dir;

    private final List<String> console = new CopyOnWriteArrayList<>();

    private RunSpec spec(String out) {
        return FakeGpu.farOobSpec(dir.resolve(out));
    }

    /** The UUID the stand-in nvidia-smi gives card {@code index} (the H200's, its last group replaced). */
    private static String uuid(String index) {
        return "GPU-1a0444fb-6664-4e9d-d6a6-00000000000" + index;
    }

    /** Another run holding card {@code index}, locked as a run locks it: by its UUID. */
    private static GpuLock hold(FakeGpu gpu, String index) throws Exception {
        return holdAs(gpu, new GpuLock.Card(index, index.startsWith("GPU-") ? index : uuid(index)));
    }

    private static GpuLock holdAs(FakeGpu gpu, GpuLock.Card card) throws Exception {
        return GpuLock.take(
                GpuLock.directory(gpu.env()),
                List.of(card),
                new GpuLock.Holder(4242, "gpu-host", "jenkins-other-9", "/ws/other", "2026-12-04T00:00:00Z"),
                1,
                new ProgressLog(line -> {}, new Secrets(Map.of())),
                GpuLock.Identity.current(Map.of()));
    }

    private static boolean free(FakeGpu gpu, String index) {
        try (GpuLock lock = hold(gpu, index)) {
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void aGpuInUseForTheWholeTimeoutRunsNoPhaseAndIsAnError() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        Report report;
        try (GpuLock other = hold(gpu, "0")) {
            report = new Runner(spec("run").gpuLockTimeoutSeconds(1), gpu.env(), console::add).run();
        }
        assertThat(report.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(report.reasons())
                .anyMatch(
                        r -> r.code().equals("gpu-lock-timeout") && r.message().contains("jenkins-other-9"));
        assertThat(report.execution().phases()).as("no phase ran").isEmpty();
        assertThat(gpu.logged("calls.txt")).doesNotContain("train.py");
        assertThat(console).anyMatch(l -> l.contains("GPU 0 is in use by jenkins-other-9, gpu-sanitize pid 4242"));
    }

    @Test
    void aRunWaitsForItsGpuThenRunsAndGivesItBack() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        GpuLock other = hold(gpu, "0");
        // the other run lets go once this one said it waits (ordered by the line, not by a sleep)
        Report report = new Runner(spec("run"), gpu.env(), line -> {
                    console.add(line);
                    if (line.contains("GPU 0 is in use by")) {
                        other.close();
                    }
                })
                .run();
        other.close();
        assertThat(report.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(console).anyMatch(l -> l.matches(".*GPU 0 taken after \\d+ s of waiting"));
        assertThat(free(gpu, "0")).as("released after the run").isTrue();
        RunRecord.GpuLockJson recorded =
                new RunDirectory(dir.resolve("run")).readRecord().gpuLock();
        assertThat(recorded.gpus()).containsExactly("0");
        assertThat(Path.of(recorded.directory()))
                .isEqualTo(GpuLock.directory(gpu.env()).toRealPath());
    }

    /** Something in the runner breaks in the middle of a phase: the report says so, and the GPU is free. */
    @Test
    void theGpusAreFreeAfterTheRunnerFailed() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        boolean[] held = new boolean[1];
        Report report = new Runner(spec("run").phases(List.of(Phase.BLOCKING)), gpu.env(), line -> {
                    if (line.contains("blocking started")) {
                        held[0] = !free(gpu, "0");
                        throw new IllegalStateException("the build log is gone");
                    }
                })
                .run();
        assertThat(held[0]).as("held while the phase starts").isTrue();
        assertThat(report.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(report.reasons())
                .anyMatch(r -> r.code().equals("runner") && r.message().contains("the build log is gone"));
        assertThat(free(gpu, "0")).as("released after the failure").isTrue();
    }

    @Test
    void anAbortWhileWaitingRunsNoPhaseAndIsAnError() throws Exception {
        // the job's Python is still importing torch when the abort comes: the run stops it before it returns
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob().put("torch-probe.sleep", "600");
        try (GpuLock other = hold(gpu, "0")) {
            CountDownLatch waiting = new CountDownLatch(1);
            Runner runner = new Runner(spec("run"), gpu.env(), line -> {
                console.add(line);
                if (line.contains("is in use by")) {
                    waiting.countDown();
                }
            });
            Report[] report = new Report[1];
            Thread run = new Thread(() -> report[0] = runner.run());
            run.start();
            assertThat(waiting.await(5, TimeUnit.MINUTES))
                    .as("the run waits for GPU 0")
                    .isTrue();
            run.interrupt();
            run.join(300_000);
            assertThat(run.isAlive()).isFalse();
            assertThat(report[0].verdict()).isEqualTo(Verdict.ERROR);
            assertThat(report[0].reasons())
                    .anyMatch(r -> r.code().equals("aborted") && r.message().contains("waiting for GPU"));
            assertThat(report[0].execution().phases()).as("no phase ran").isEmpty();
            // nothing of the run goes on after it returned (it wrote into the run directory while JUnit deleted it)
            try (var commands = Files.list(dir.resolve("run/env/commands"))) {
                assertThat(commands.toList())
                        .isNotEmpty()
                        .allSatisfy(command -> assertThat(command.resolve(PhaseProcess.EXIT_STATUS))
                                .as("the environment check's command ended before the run returned")
                                .exists());
            }
        }
    }

    @Test
    void theGpusAreFreeAfterAnAbortedRun() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).clean().hang("blocking");
        Runner runner = new Runner(spec("run").phases(List.of(Phase.BLOCKING)), gpu.env(), console::add);
        Thread run = new Thread(runner::run);
        run.start();
        assertThat(FileWait.content(gpu.log.resolve("pid-blocking.txt"), Duration.ofMinutes(5)))
                .as("the blocking job runs")
                .isNotBlank();
        assertThat(free(gpu, "0")).as("held while the run runs").isFalse();
        run.interrupt();
        run.join(300_000);
        assertThat(run.isAlive()).isFalse();
        assertThat(free(gpu, "0")).as("released after the abort").isTrue();
    }

    @Test
    void withoutTheLockARunDoesNotWait() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        try (GpuLock other = hold(gpu, "0")) {
            Report report =
                    new Runner(spec("run").gpuLock(false).gpuLockTimeoutSeconds(1), gpu.env(), console::add).run();
            assertThat(report.verdict()).isEqualTo(Verdict.FAIL);
        }
        assertThat(console).noneMatch(l -> l.contains("is in use by"));
    }

    @Test
    void anUnusableLockFolderRunsNoPhaseAndIsAnErrorUnlessTheLockIsOff() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        Path notAFolder = Files.writeString(dir.resolve("locks"), "a file");
        Map<String, String> env = new HashMap<>(gpu.env());
        env.put("GPU_SANITIZE_LOCK_DIR", notAFolder.toString());
        Report report = new Runner(spec("run"), env, console::add).run();
        assertThat(report.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(report.reasons())
                .anyMatch(r -> r.code().equals("gpu-lock") && r.message().contains(notAFolder.toString()));
        assertThat(report.execution().phases()).as("no phase ran").isEmpty();
        Report off = new Runner(spec("off").gpuLock(false), env, console::add).run();
        assertThat(off.verdict()).isEqualTo(Verdict.FAIL);
    }

    /**
     * Issue #26 item 5: {@code --gpu 0} and {@code --gpu GPU-<uuid of card 0>} are one card: a run selecting it by
     * its index waits for a run that selected it by its UUID, and the other way round.
     */
    @Test
    void oneCardIsOneLockWhateverSpellingSelectedIt() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        Report report;
        try (GpuLock other =
                holdAs(gpu, GpuLock.Card.asGiven(List.of(uuid("0"))).get(0))) {
            report = new Runner(spec("run").gpuLockTimeoutSeconds(1), gpu.env(), console::add).run();
        }
        assertThat(report.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(report.reasons()).anyMatch(r -> r.code().equals("gpu-lock-timeout"));
        assertThat(report.execution().phases())
                .as("no phase ran beside the other run")
                .isEmpty();
        assertThat(console)
                .anyMatch(l ->
                        l.contains("GPU 0 is in use by jenkins-other-9") && l.contains("gpu-" + uuid("0") + ".lock"));

        boolean[] heldByUuid = new boolean[1];
        Report byIndex = new Runner(spec("second").phases(List.of(Phase.BLOCKING)), gpu.env(), line -> {
                    if (line.contains("blocking started")) {
                        try (GpuLock l = holdAs(
                                gpu, GpuLock.Card.asGiven(List.of(uuid("0"))).get(0))) {
                            heldByUuid[0] = false;
                        } catch (Exception e) {
                            heldByUuid[0] = true;
                        }
                    }
                })
                .run();
        assertThat(heldByUuid[0])
                .as("the UUID's lock is taken by the run that said 0")
                .isTrue();
        assertThat(byIndex.execution().phases()).isNotEmpty();
        assertThat(new RunDirectory(dir.resolve("second"))
                        .readRecord()
                        .gpuLock()
                        .gpus())
                .as("recorded as the run named it")
                .containsExactly("0");
    }
}
