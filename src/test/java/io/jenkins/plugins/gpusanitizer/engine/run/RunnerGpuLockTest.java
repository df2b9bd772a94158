package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner takes its GPUs before any phase and gives them back on every way out. */
class RunnerGpuLockTest {
    @TempDir
    Path dir;

    private final List<String> console = new CopyOnWriteArrayList<>();

    private RunSpec spec(String out) {
        return FakeGpu.farOobSpec(dir.resolve(out));
    }

    private static GpuLock hold(FakeGpu gpu, String index) throws Exception {
        return GpuLock.take(
                GpuLock.directory(gpu.env()),
                List.of(index),
                new GpuLock.Holder(4242, "gpu-host", "jenkins-other-9", "/ws/other", "2026-12-04T00:00:00Z"),
                1,
                new ProgressLog(line -> {}, new Secrets(Map.of())));
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
        assertThat(report.verdict()).isEqualTo("ERROR");
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
        Thread release = new Thread(() -> {
            try {
                Thread.sleep(1500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            other.close();
        });
        release.start();
        Report report = new Runner(spec("run"), gpu.env(), console::add).run();
        release.join();
        assertThat(report.verdict()).isEqualTo("FAIL");
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(console).anyMatch(l -> l.matches(".*GPU 0 taken after \\d+ s of waiting"));
        assertThat(free(gpu, "0")).as("released after the run").isTrue();
    }

    @Test
    void theGpusAreFreeAfterAnAbortedRun() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).clean().hang("blocking");
        Runner runner = new Runner(spec("run").phases(List.of(Phase.BLOCKING)), gpu.env(), console::add);
        Thread run = new Thread(runner::run);
        run.start();
        for (int i = 0; i < 400 && gpu.logged("pid-blocking.txt").isBlank(); i++) {
            Thread.sleep(25);
        }
        assertThat(free(gpu, "0")).as("held while the run runs").isFalse();
        run.interrupt();
        run.join(30_000);
        assertThat(run.isAlive()).isFalse();
        assertThat(free(gpu, "0")).as("released after the abort").isTrue();
    }

    @Test
    void withoutTheLockARunDoesNotWait() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        try (GpuLock other = hold(gpu, "0")) {
            Report report =
                    new Runner(spec("run").gpuLock(false).gpuLockTimeoutSeconds(1), gpu.env(), console::add).run();
            assertThat(report.verdict()).isEqualTo("FAIL");
        }
        assertThat(console).noneMatch(l -> l.contains("is in use by"));
    }
}
