package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.GpuPids;
import io.jenkins.plugins.gpusanitizer.engine.report.MemoryJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory sampler beside the regression run (memory-sampler.sh) through real processes: two nvidia-smi
 * processes looping, the card's total and each process's memory, and the listed pids checked against the
 * phase's session while they live.
 */
class MemorySamplerTest {
    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    private Report run(FakeGpu gpu) {
        RunSpec spec = FakeGpu.farOobSpec(dir.resolve("run"))
                .command(List.of("python3", "train.py"))
                .progressIntervalSeconds(1);
        return new Runner(spec, gpu.env(), console::add).run();
    }

    /**
     * Opens the regression run's gate (the job waits, alive, until then) once gpu-pids.txt holds {@code line} ({@code
     * PID} stands for the job's pid): whatever the machine's load, the sampler has seen what the test asserts.
     */
    private Thread openOnceWritten(String line, AtomicBoolean written) {
        Thread opener = new Thread(() -> {
            try {
                String job = FileWait.content(dir.resolve("gpu/log/gated-async.txt"), Duration.ofMinutes(2));
                written.set(FileWait.containing(
                        dir.resolve("run/regression").resolve(RunLayout.GPU_PIDS),
                        line.replace("PID", job),
                        Duration.ofMinutes(1)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                try {
                    Files.writeString(dir.resolve("gpu/case/async.open"), "");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
        opener.start();
        return opener;
    }

    @Test
    void theJobsOwnProcessesAreToldFromAnotherOnTheCard() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu"))
                .clean()
                .put("apps-job", "853")
                .put("apps-other", "40000")
                .put("async.gate", "");
        AtomicBoolean checked = new AtomicBoolean();
        Thread opener = openOnceWritten("PID ours", checked);
        Report r = run(gpu);
        opener.join();
        assertThat(checked)
                .as("the sampler checked the job's pid while it lived")
                .isTrue();

        assertThat(gpu.logged("calls.txt"))
                .as("one looping nvidia-smi per query, never one per sample")
                .containsOnlyOnce("nvidia-smi --query-compute-apps=timestamp,pid,used_memory --format=csv,nounits"
                        + " -lms 100 -i 0")
                .containsOnlyOnce("nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total,utilization.gpu"
                        + " --format=csv,nounits -lms 100 -i 0");
        Path regression = dir.resolve("run").resolve("regression");
        assertThat(Files.readAllLines(regression.resolve(RunLayout.MEMORY_CSV)).get(0))
                .as("the card's total is kept as before")
                .isEqualTo("timestamp, index, memory.used [MiB], memory.total [MiB], utilization.gpu [%]");
        List<String> apps = Files.readAllLines(regression.resolve(RunLayout.MEMORY_APPS_CSV));
        assertThat(apps.get(0)).isEqualTo("timestamp, pid, used_gpu_memory [MiB]");

        long job = Long.parseLong(gpu.logged("pid-async.txt").trim());
        GpuPids pids = GpuPids.read(regression.resolve(RunLayout.GPU_PIDS));
        assertThat(pids.ours())
                .as("the regression run's job, in the phase's session")
                .containsExactly(job);
        assertThat(pids.others()).as("the other process nvidia-smi listed").hasSize(1);
        assertThat(Files.readString(regression.resolve(RunLayout.GPU_PIDS), StandardCharsets.UTF_8))
                .contains(job + " ours session\n");
        long other = pids.others().iterator().next();
        assertThat(Processes.running(other))
                .as("the per-process nvidia-smi is stopped with the phase")
                .isFalse();

        MemoryJson memory = r.memory().get(0);
        if (pids.hostPidNamespace()) {
            assertThat(memory.basis()).isEqualTo("per-process");
            assertThat(memory.peakMiB())
                    .as("the job's own 853 MiB, not the other's 40000")
                    .isEqualTo(853);
            assertThat(memory.basisNote())
                    .startsWith("per-process: the sum of the job's own 1 process(es) on the card")
                    .contains("pids " + job, "1 other process(es) on the card (up to 40000 MiB together) not counted");
        } else {
            // a container's own pid namespace: nvidia-smi's pids are the host's, so none can be the job's
            assertThat(memory.basis()).isEqualTo("card-total");
            assertThat(memory.basisNote()).contains("pid namespace of its own");
        }
    }

    @Test
    void aPerProcessSamplerThatDiesIsNotedAndTheCardTotalIsJudgedAlone() throws Exception {
        FakeGpu gpu =
                new FakeGpu(dir.resolve("gpu")).clean().put("apps-dies", "").put("async.gate", "");
        AtomicBoolean noted = new AtomicBoolean();
        Thread opener = openOnceWritten("apps-sampler-exit 4", noted);
        Report r = run(gpu);
        opener.join();
        assertThat(noted)
                .as("the sampler noted the per-process nvidia-smi's end")
                .isTrue();

        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons())
                .anySatisfy(reason -> assertThat(reason.message())
                        .contains("per-process memory sampler (nvidia-smi --query-compute-apps) exited early (code 4"));
        MemoryJson memory = r.memory().get(0);
        assertThat(memory.basis()).isEqualTo("card-total");
        assertThat(memory.basisNote())
                .isEqualTo("card total: memory.used of GPU 0, every process on the card (the regression run had the"
                        + " card to itself); nvidia-smi listed no process on the card");
    }
}
