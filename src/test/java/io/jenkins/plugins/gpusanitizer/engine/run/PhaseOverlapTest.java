package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/** On one GPU the blocking run runs beside the sanitizer run (where the regression run goes: RegressionBesideTest). */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class PhaseOverlapTest {
    @TempDir
    Path dir;

    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    private RunSpec spec(Path out) {
        return FakeGpu.farOobSpec(out);
    }

    private Report run(FakeGpu gpu, boolean overlap, String name) {
        Report report = new Runner(
                        spec(dir.resolve(name + "/run"))
                                .phases(List.of(Phase.SANITIZER, Phase.BLOCKING))
                                .overlapBlocking(overlap),
                        gpu.env(),
                        console::add)
                .run();
        assertThat(report.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(report.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking");
        return report;
    }

    @Test
    void theBlockingRunIsHiddenBehindTheSanitizerRunWithTheSameFindings() throws Exception {
        // beside: the sanitizer's job and the blocking job wait at gates that open only once both wait at once
        FakeGpu beside = new FakeGpu(dir.resolve("beside")).farOob();
        CompletableFuture<Boolean> together = beside.gatesOpenTogether("memcheck-app", "blocking");
        run(beside, true, "beside");
        assertThat(together.get(5, TimeUnit.MINUTES))
                .as("the blocking job ran while the sanitizer's job did")
                .isTrue();
        assertThat(console).anyMatch(line -> line.contains("blocking runs beside the sanitizer"));

        // after: the blocking job starts once the sanitizer run has ended (the files' times: events, not a duration)
        FakeGpu after = new FakeGpu(dir.resolve("after")).farOob();
        run(after, false, "after");
        assertThat(Files.getLastModifiedTime(after.log.resolve("pid-blocking.txt")))
                .isGreaterThanOrEqualTo(Files.getLastModifiedTime(
                        dir.resolve("after/run/sanitizer-memcheck").resolve(PhaseProcess.EXIT_STATUS)));
    }

    @Test
    void aBlockingRunThatRanOutOfMemoryBesideTheSanitizerRunsAgainAlone() {
        FakeGpu gpu = new FakeGpu(dir)
                .farOob()
                .put(
                        "blocking.first-stderr",
                        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB."
                                + " GPU 0 has a total capacity of 139.81 GiB of which 1.02 GiB is free.\n");
        Report report = new Runner(spec(dir.resolve("run")), gpu.env(), console::add).run();

        assertThat(console)
                .anyMatch(line -> line.contains(
                        "the blocking run ran out of GPU memory beside the sanitizer run: run again alone"));
        assertThat(dir.resolve("run/blocking-beside-sanitizer/stderr.log"))
                .content()
                .contains("CUDA out of memory");
        assertThat(report.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
        assertThat(report.diagnosis().faultAt().line())
                .as("the blocking run alone names the real line, not the shared card's OOM")
                .isEqualTo(32);
        assertThat(report.reasons()).noneMatch(reason -> reason.message().contains("out of memory"));
    }

    @Test
    void aBlockingRunThatCouldNotTakeItsPortBesideTheSanitizerRunsAgainAlone() {
        FakeGpu gpu = new FakeGpu(dir)
                .farOob()
                .put(
                        "blocking.first-stderr",
                        "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:12355 (errno: 98 -"
                                + " Address already in use).\n");
        Report report = new Runner(spec(dir.resolve("run")), gpu.env(), console::add).run();

        assertThat(console)
                .anyMatch(line -> line.contains("the blocking run ran again after the sanitizer run: beside it, it"
                        + " could not take port 12355 (Address already in use)"));
        assertThat(dir.resolve("run/blocking-beside-sanitizer/stderr.log"))
                .content()
                .contains("Address already in use");
        assertThat(report.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
        assertThat(report.diagnosis().faultAt().line())
                .as("the blocking run alone names the real line")
                .isEqualTo(32);
    }
}
