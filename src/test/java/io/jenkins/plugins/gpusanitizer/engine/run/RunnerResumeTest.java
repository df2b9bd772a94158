package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import io.jenkins.plugins.gpusanitizer.engine.run.process.LocalProcessStarter;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A durable run taken up from its run directory by a fresh runner, as the Jenkins step does after a
 * controller restart: the phases run detached, the new runner follows the one that is running instead
 * of starting it again, and the old runner — when its JVM survived — steps back without stopping it.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class RunnerResumeTest {
    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    private RunSpec spec(Path out) {
        return FakeGpu.farOobSpec(out).progressIntervalSeconds(1);
    }

    private static Runner detached(RunSpec spec, FakeGpu gpu, List<String> console) {
        return new Runner(spec, gpu.env(), console::add, new LocalProcessStarter(), true);
    }

    @Test
    void aResumedRunFollowsTheRunningPhaseAndFinishesTheRest() throws Exception {
        // the same job run straight through, for comparison
        FakeGpu straightGpu = new FakeGpu(dir.resolve("straight")).farOob().put("blocking.sleep", "3");
        Report straight = detached(spec(dir.resolve("straight/run")), straightGpu, new ArrayList<>())
                .run();

        FakeGpu gpu = new FakeGpu(dir.resolve("resumed")).farOob().put("blocking.sleep", "3");
        Path out = dir.resolve("resumed/run");
        AtomicReference<Throwable> oldRunner = new AtomicReference<>();
        Thread first = new Thread(() -> {
            try {
                detached(spec(out), gpu, new ArrayList<>()).run();
            } catch (Throwable e) {
                oldRunner.set(e);
            }
        });
        first.start();
        awaitFile(gpu, "pid-blocking.txt");
        long blockingJob = Long.parseLong(gpu.logged("pid-blocking.txt").trim());

        // "the controller restarted": a fresh runner takes the run up while the blocking job still runs
        Report resumed = detached(spec(out), gpu, console).resume();
        first.join(300_000);

        assertThat(oldRunner.get())
                .as("the old runner steps back once the resumed one took over")
                .isInstanceOf(RunLease.Superseded.class);
        assertThat(console).anyMatch(line -> line.contains("blocking followed again"));
        assertThat(Files.readString(out.resolve("blocking/target.pid")).trim())
                .as("the blocking job was not started again")
                .isEqualTo(Long.toString(blockingJob));
        assertThat(gpu.logged("calls.txt").lines().count())
                .as("as many job starts as a run straight through")
                .isEqualTo(straightGpu.logged("calls.txt").lines().count());
        assertThat(resumed.verdict()).isEqualTo(straight.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(resumed.execution().phases())
                .extracting(PhaseJson::name, PhaseJson::status, PhaseJson::exitCode)
                .containsExactlyElementsOf(straight.execution().phases().stream()
                        .map(p -> tuple(p.name(), p.status(), p.exitCode()))
                        .toList());
        assertThat(resumed.diagnosis().faultAt().line())
                .isEqualTo(straight.diagnosis().faultAt().line())
                .isEqualTo(32);
        assertThat(out.resolve("report.json")).isNotEmptyFile();
        assertThat(Files.readString(out.resolve(RunLease.FILE)))
                .as("the run directory says who drives the detached phases")
                .contains("runner: pid " + ProcessHandle.current().pid())
                .contains("run detached");
    }

    @Test
    void aFinishedRunIsReadBackNotRunAgain() throws Exception {
        FakeGpu gpu = new FakeGpu(dir).farOob();
        Report first =
                detached(spec(dir.resolve("run")), gpu, new ArrayList<>()).run();
        long starts = gpu.logged("calls.txt").lines().count();

        Report again = detached(spec(dir.resolve("run")), gpu, console).resume();

        assertThat(again.verdict()).isEqualTo(first.verdict());
        assertThat(again.defects()).hasSameSizeAs(first.defects());
        assertThat(gpu.logged("calls.txt").lines().count()).isEqualTo(starts);
        assertThat(console).anyMatch(line -> line.contains("had finished before the restart"));
    }

    @Test
    void aRunThatHadNotStartedStartsNow() {
        FakeGpu gpu = new FakeGpu(dir).farOob();
        Report report = detached(spec(dir.resolve("not-yet")), gpu, console).resume();
        assertThat(report.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(console).anyMatch(line -> line.contains("had not started before the restart"));
    }

    @Test
    void aDirectoryThatHoldsNoRunIsAOneLineError() throws Exception {
        FakeGpu gpu = new FakeGpu(dir).clean();
        Files.createDirectories(dir.resolve("other"));
        Files.writeString(dir.resolve("other/notes.txt"), "not a run");
        assertThatThrownBy(
                        () -> detached(spec(dir.resolve("other")), gpu, console).resume())
                .isInstanceOf(RunException.class)
                .hasMessage("nothing to resume in " + dir.resolve("other") + ": it has no run.json");
        assertThat(gpu.logged("calls.txt")).isEmpty();
    }

    private static void awaitFile(FakeGpu gpu, String name) throws IOException, InterruptedException {
        assertThat(FileWait.content(gpu.log.resolve(name), Duration.ofMinutes(5)))
                .as(name)
                .isNotBlank();
    }
}
