package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The environment check's slow part (the job's Python importing torch) runs beside the sanitizer and blocking runs
 * on one GPU; an unusable answer stops them and counts none of it; an answer that changes the blocking run's
 * settings runs it again; the regression run starts after the answer. Whatever the plan, the first phase(s) start
 * beside the check (unless {@code --no-overlap}).
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class EnvironmentCheckBesideTest {
    @TempDir
    Path dir;

    private final List<String> console = java.util.Collections.synchronizedList(new ArrayList<>());

    private Report run(FakeGpu gpu, RunSpec spec) {
        return new Runner(spec, gpu.env(), console::add).run();
    }

    /** Seconds since the epoch a fake tool wrote into a file of FAKE_LOG. */
    private static double stamp(FakeGpu gpu, String name) {
        return Double.parseDouble(gpu.logged(name).trim());
    }

    /** When the job under the sanitizer started: the fake job writes its pid file first. */
    private static double started(FakeGpu gpu, String mode) throws IOException {
        return Files.getLastModifiedTime(gpu.log.resolve("pid-" + mode + ".txt"))
                        .toMillis()
                / 1000.0;
    }

    @Test
    void theSanitizerRunStartsWhileTorchIsStillBeingImportedAndTheFindingsAreTheSame() throws IOException {
        // the probe answers only once both jobs run: were they started after its answer, it would wait in vain
        FakeGpu gpu = new FakeGpu(dir).farOob().put("torch-probe.after", "pid-memcheck-app.txt pid-blocking.txt");
        Report report = run(gpu, FakeGpu.farOobSpec(dir.resolve("run")));

        assertThat(started(gpu, "memcheck-app"))
                .as("the sanitizer's job started before the torch probe answered")
                .isLessThan(stamp(gpu, "torch-probe.end"));
        assertThat(started(gpu, "blocking"))
                .as("the blocking run too, on the usual torch (no device-side assertions)")
                .isLessThan(stamp(gpu, "torch-probe.end"));
        assertThat(gpu.logged("env-blocking.txt")).doesNotContain("PYTORCH_USE_CUDA_DSA");
        assertThat(dir.resolve("run/blocking-before-environment-check")).doesNotExist();
        assertThat(report.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(report.execution().environment().torchVersion()).isEqualTo("2.11.0+cu130");
        assertThat(report.execution().environment().compatibility()).isEqualTo("ok");
        assertThat(report.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
    }

    @Test
    void anUnusableEnvironmentStopsTheSanitizerRunStartedBesideItAndCountsNothingOfIt() throws IOException {
        FakeGpu gpu = new FakeGpu(dir)
                .farOob()
                .put("torch-probe.after", "pid-memcheck-app.txt pid-blocking.txt")
                .put(
                        "torch-probe.json",
                        "{\"python\": \"3.12.3\", \"torch\": \"2.11.0+cu130\", \"cuda\": \"13.0\","
                                + " \"cuda_available\": false, \"dsa\": false}")
                .hang("memcheck-app");
        Report report = run(gpu, FakeGpu.farOobSpec(dir.resolve("run")));

        assertThat(report.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(report.reasons())
                .anyMatch(r -> r.code().equals("environment") && r.message().contains("is_available() is False"));
        assertThat(report.execution().phases()).as("no phase result counts").isEmpty();
        assertThat(report.defects()).isEmpty();
        assertThat(dir.resolve("run/sanitizer-memcheck-before-environment-check/sanitizer.log"))
                .as("what the stopped run wrote is kept")
                .exists();
        assertThat(dir.resolve("run/sanitizer-memcheck")).doesNotExist();
        assertThat(dir.resolve("run/blocking-before-environment-check"))
                .as("the blocking run started beside the check is stopped (or ended) and kept too")
                .exists();
        assertThat(dir.resolve("run/blocking")).doesNotExist();
        assertThat(Files.readString(dir.resolve("run/sanitizer-memcheck-before-environment-check")
                        .resolve(PhaseProcess.EXIT_STATUS)))
                .as("stopped after the answer (the supervisor's record), not at the phase's time limit")
                .contains("status=stopped-early");
        long pid = Long.parseLong(gpu.logged("pid-memcheck-app.txt").trim());
        assertThat(Processes.running(pid)).as("the stopped job is gone").isFalse();
        assertThat(console).anyMatch(l -> l.contains("before-environment-check") && l.contains("no phase result"));
    }

    @Test
    void aTorchWithDeviceSideAssertionsRunsTheBlockingRunAgainWithThem() throws IOException {
        FakeGpu gpu = new FakeGpu(dir)
                .farOob()
                .put("torch-probe.after", "held-blocking.txt")
                .put("blocking.first-hold", "") // still running when the answer comes
                .put(
                        "torch-probe.json",
                        "{\"python\": \"3.12.3\", \"torch\": \"2.11.0+cu130\", \"cuda\": \"13.0\","
                                + " \"cuda_available\": true, \"dsa\": true}");
        Report report = run(gpu, FakeGpu.farOobSpec(dir.resolve("run")));

        assertThat(dir.resolve("run/blocking-before-environment-check/stderr.log"))
                .as("the first blocking run, started on the usual torch, is kept")
                .exists();
        assertThat(started(gpu, "blocking"))
                .as("the blocking run that counts started after the answer")
                .isGreaterThan(stamp(gpu, "torch-probe.end"));
        assertThat(gpu.logged("env-blocking.txt")).contains("PYTORCH_USE_CUDA_DSA=1");
        assertThat(console).anyMatch(l -> l.contains("this torch has device-side assertions"));
        assertThat(report.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(report.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
        assertThat(report.execution().phases())
                .filteredOn(p -> p.name().equals("blocking"))
                .singleElement()
                .satisfies(p -> assertThat(p.status()).isEqualTo("failed"));
    }

    @Test
    void aCrashOfTheBlockingRunSetAsideForTheCheckIsJudged() {
        // a `bash train.sh` whose own venv has torch: the check's Python has none, so the first blocking run (started
        // with the probe) is set aside and run again; its intermittent illegal memory access is evidence all the same
        FakeGpu gpu = new FakeGpu(dir)
                .clean()
                .put("torch-probe.after", "first-failed-blocking.txt") // the crash comes before the answer
                .put(
                        "torch-probe.json",
                        "{\"python\": \"3.12.3\", \"executable\": \"/usr/bin/python3\", "
                                + "\"error\": \"ModuleNotFoundError(\\\"No module named 'torch'\\\")\"}")
                .copy("far-oob/blocking.stderr", "blocking.first-stderr");
        Report report = run(gpu, FakeGpu.farOobSpec(dir.resolve("run")));

        assertThat(dir.resolve("run/blocking-before-environment-check/stderr.log"))
                .as("the first run is set aside, kept for the record")
                .content()
                .contains("illegal memory access");
        // the run again did not fail: it passed, or was cut once the clean sanitizer run beside it ended first
        // (which comes first depends on the machine's load)
        assertThat(RunnerTest.phase(report, "blocking").status()).isIn("passed", "stopped-early");
        assertThat(report.verdict()).as(report.reasons().toString()).isEqualTo(Verdict.FAIL);
        assertThat(report.reasons())
                .anyMatch(r -> r.code().equals("crash") && r.message().contains("blocking-before-environment-check"));
    }

    @Test
    void theStopOfABlockingRunSetAsideForTheCheckIsNoFailure() {
        // stopped when the answer changed its settings: torchrun's SignalException is the gate's doing, not the job's
        FakeGpu gpu = new FakeGpu(dir)
                .clean()
                .put("torch-probe.after", "held-blocking.txt")
                .put(
                        "torch-probe.json",
                        "{\"python\": \"3.12.3\", \"torch\": \"2.11.0+cu130\", \"cuda\": \"13.0\","
                                + " \"cuda_available\": true, \"dsa\": true}")
                .put("blocking.first-hold", "") // still running when the answer comes
                .copy("torchrun-sigterm/blocking.stderr", "blocking.term-stderr");
        Report report = run(gpu, FakeGpu.farOobSpec(dir.resolve("run")));

        assertThat(dir.resolve("run/blocking-before-environment-check/stderr.log"))
                .content()
                .contains("SignalException");
        assertThat(report.verdict()).as(report.reasons().toString()).isEqualTo(Verdict.PASS);
    }

    /**
     * Whatever the plan, the first phase's job starts while the check's Python still waits at its gate: the test opens
     * that gate only once it saw the job start, so a first phase that waited for the check would never start.
     */
    @ParameterizedTest
    @ValueSource(strings = {"all three", "sanitizer then regression", "two GPUs", "regression alone", "blocking first"})
    void theFirstPhaseNeverWaitsForTheEnvironmentCheck(String plan) throws Exception {
        FakeGpu gpu = new FakeGpu(dir).clean().put("async.sleep", "0").put("torch-probe.gate", "");
        RunSpec spec = FakeGpu.farOobSpec(dir.resolve("run"));
        String first = "memcheck-app";
        switch (plan) {
            case "sanitizer then regression" -> spec.phases(List.of(Phase.SANITIZER, Phase.REGRESSION));
            case "two GPUs" -> {
                gpu.put("gpu-count", "2");
                spec.gpus(List.of("0", "1"));
            }
            case "regression alone" -> {
                spec.phases(List.of(Phase.REGRESSION));
                first = "async";
            }
            case "blocking first" -> {
                spec.phases(List.of(Phase.BLOCKING, Phase.REGRESSION));
                first = "blocking";
            }
            default -> {}
        }
        FutureTask<Report> run = new FutureTask<>(() -> new Runner(spec, gpu.env(), console::add).run());
        Thread runner = new Thread(run, "runner-under-test");
        runner.setDaemon(true);
        runner.start();

        boolean started = FileWait.all(Duration.ofMinutes(2), gpu.log.resolve("pid-" + first + ".txt"));
        boolean checkStillWaiting = !Files.exists(gpu.log.resolve("torch-probe.end"));
        gpu.put("torch-probe.open", "");
        Report report = run.get(5, TimeUnit.MINUTES);

        assertThat(started)
                .as("the first phase's job started before the check's Python answered")
                .isTrue();
        assertThat(checkStillWaiting).isTrue();
        assertThat(report.execution().environment().torchVersion()).isEqualTo("2.11.0+cu130");
        assertThat(report.verdict()).as(report.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(report.execution().phases()).isNotEmpty();
    }

    @Test
    void anUnusableEnvironmentStopsARegressionRunStartedBesideItsCheck() {
        FakeGpu gpu = new FakeGpu(dir)
                .clean()
                .put("torch-probe.sleep", "1")
                .put(
                        "torch-probe.json",
                        "{\"python\": \"3.12.3\", \"torch\": \"2.11.0+cu130\", \"cuda\": \"13.0\","
                                + " \"cuda_available\": false, \"dsa\": false}")
                .hang("async");
        Report report = run(gpu, FakeGpu.farOobSpec(dir.resolve("run")).phases(List.of(Phase.REGRESSION)));

        assertThat(report.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(report.execution().phases()).as("no phase result counts").isEmpty();
        assertThat(dir.resolve("run/regression-before-environment-check/stderr.log"))
                .as("what the stopped run wrote is kept")
                .exists();
        assertThat(dir.resolve("run/regression")).doesNotExist();
    }

    @Test
    void withoutOverlapTheCheckAnswersBeforeAnyPhase() throws IOException {
        FakeGpu gpu = new FakeGpu(dir).farOob().put("torch-probe.sleep", "1");
        Report report = run(gpu, FakeGpu.farOobSpec(dir.resolve("run")).overlapBlocking(false));

        assertThat(started(gpu, "memcheck-app")).isGreaterThanOrEqualTo(stamp(gpu, "torch-probe.end") - 0.01);
        assertThat(report.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
    }

    @Test
    void aPythonThatCannotBeFoundIsAnErrorBeforeAnyPhaseCounts() {
        FakeGpu gpu = new FakeGpu(dir).farOob();
        Report report = run(
                gpu,
                FakeGpu.farOobSpec(dir.resolve("run"))
                        .python(dir.resolve("no-such-python").toString()));

        assertThat(report.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(report.reasons())
                .anyMatch(r -> r.code().equals("environment") && r.message().contains("--python"));
        assertThat(report.execution().phases()).isEmpty();
    }
}
