package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/** The real runner through real processes, with stand-in GPU tools replaying the H200 corpus. */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class RunnerTest {
    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    private RunSpec spec() {
        return new RunSpec()
                .command(List.of("python3", "train.py", "--bug", "far"))
                .outDir(dir.resolve("run").toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .progressIntervalSeconds(1)
                .samplerIntervalMs(100);
    }

    private Report run(FakeGpu gpu, RunSpec spec) {
        return run(gpu.env(), spec);
    }

    private Report run(Map<String, String> env, RunSpec spec) {
        return new Runner(spec, env, console::add).run();
    }

    /** The recorded phase of that name (tests of the runner share it). */
    static PhaseJson phase(Report r, String name) {
        return r.execution().phases().stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    /**
     * The runs of a clean job that ran it to its end: all three, but the blocking run where the gate cut it (by design:
     * the sanitizer run beside it ended clean first, and the regression run runs the whole job). Which run ends first
     * is the machine's to decide: on CI's loaded one the blocking run was cut still importing.
     */
    static List<String> runsToTheEnd(Report r) {
        PhaseJson blocking = phase(r, "blocking");
        return BlockingPhase.wasCut(blocking.status(), blocking.note())
                ? List.of("sanitizer-memcheck", "regression")
                : List.of("sanitizer-memcheck", "blocking", "regression");
    }

    @Test
    void farOutOfBoundsAllThreePhases() throws IOException {
        // the regression run runs for twice the blocking run's time to failure: a blocking run that fails 0.4 s in
        // gave its async error 0.3 s after a start that a loaded machine delayed past that target (reportedAt null in
        // CI); failing 1 s in leaves it the margin a real job's seconds give
        FakeGpu gpu = new FakeGpu(dir).farOob().put("blocking.sleep", "1.0");
        Map<String, String> env = new java.util.LinkedHashMap<>(gpu.env());
        env.put("CUDA_LAUNCH_BLOCKING", "1"); // inherited by accident: must not reach the regression run
        env.put("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"); // must not reach the sanitizer run
        Report r = run(env, spec());
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.errorsTotal()).isEqualTo(1603L);
        assertThat(r.defects()).filteredOn(d -> !d.suppressed()).singleElement().satisfies(d -> {
            assertThat(d.kernel()).isEqualTo("scale_shift");
            assertThat(d.hostLocation().line()).isEqualTo(32);
            assertThat(d.hostLocation().function()).isEqualTo("buggy_scale");
        });
        assertThat(r.diagnosis().reportedAt().line()).isEqualTo(99);
        assertThat(r.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(r.diagnosis().faultEvidence()).isEqualTo("blocking+sanitizer");
        PhaseJson san = phase(r, "sanitizer-memcheck");
        assertThat(san.exitCode()).isEqualTo(Runner.SANITIZER_ERROR_EXIT);
        assertThat(san.command())
                .containsSubsequence("--tool", "memcheck", "--xml", "--save")
                .contains("--print-limit", "1000")
                .containsSubsequence("--padding", "4096");
        assertThat(san.environment())
                .containsEntry("PYTORCH_NO_CUDA_MEMORY_CACHING", "1")
                .containsEntry("CUDA_VISIBLE_DEVICES", "0")
                .containsEntry("PYTORCH_CUDA_ALLOC_CONF", "(removed)")
                .containsEntry("CUPY_CACHE_SAVE_CUDA_SOURCE", "1") // issue #25, 4: a CuPy kernel's own source
                .containsEntry("CUPY_CUDA_COMPILE_WITH_DEBUG", "1"); // and its line table
        assertThat(san.environment().get("CUPY_CACHE_DIR"))
                .as("a fresh cache beside the log: CuPy saves a source only for a kernel it compiles")
                .endsWith("sanitizer-memcheck/"
                        + io.jenkins.plugins.gpusanitizer.engine.findings.RuntimeKernels.CUPY_CACHE_DIR);
        PhaseJson blocking = phase(r, "blocking");
        assertThat(blocking.status()).isEqualTo("failed");
        assertThat(blocking.timeToFailureSeconds()).isBetween(0.3, blocking.wallSeconds());
        assertThat(r.execution().referenceFailureSeconds()).isEqualTo(blocking.timeToFailureSeconds());
        assertThat(r.execution().referenceSource()).isEqualTo("this run's blocking phase");
        assertThat(r.execution().regressionTargetSeconds()).isEqualTo(2 * blocking.timeToFailureSeconds());
        assertThat(gpu.logged("env-memcheck-app.txt"))
                .contains("PYTORCH_NO_CUDA_MEMORY_CACHING=1\n")
                .doesNotContain("CUDA_LAUNCH_BLOCKING")
                .doesNotContain("expandable_segments");
        assertThat(gpu.logged("env-blocking.txt"))
                .doesNotContain("CUPY_CACHE")
                .contains("CUDA_LAUNCH_BLOCKING=1\n")
                .doesNotContain("PYTORCH_USE_CUDA_DSA")
                .doesNotContain("PYTORCH_NO_CUDA_MEMORY_CACHING");
        assertThat(gpu.logged("env-async.txt"))
                .doesNotContain("CUDA_LAUNCH_BLOCKING")
                .doesNotContain("PYTORCH_NO_CUDA_MEMORY_CACHING")
                .contains("CUDA_VISIBLE_DEVICES=0\n");
        assertThat(r.execution().environment().driverVersion()).isEqualTo("580.159.04");
        assertThat(r.execution().environment().driverCudaVersion()).isEqualTo("13.0");
        assertThat(r.execution().environment().torchCuda()).isEqualTo("13.0");
        assertThat(r.execution().environment().compatibility()).isEqualTo("ok");
        assertThat(r.execution().environment().torchDsa()).isFalse();
        Path run = dir.resolve("run");
        for (String f : List.of(
                "run.json",
                "report.json",
                "report.html",
                "env/nvidia-smi.txt",
                "env/nvidia-smi-query.csv",
                "env/nvcc-version.txt",
                "env/compute-sanitizer-version.txt",
                "sanitizer-memcheck/sanitizer.log",
                "sanitizer-memcheck/sanitizer.xml",
                "sanitizer-memcheck/command.txt",
                "blocking/stderr.log",
                "regression/stderr.log",
                "regression/nvidia-smi.csv")) {
            assertThat(run.resolve(f)).as(f).isNotEmptyFile();
        }
        // the quick commands in one start of the supervisor, the job's Python in another (tools are looked up here)
        try (var commands = Files.list(run.resolve("env/commands"))) {
            assertThat(commands.map(c -> c.getFileName().toString())).containsExactlyInAnyOrder("1-quick", "2-python3");
        }
        assertThat(r.execution().environment().nvccVersion()).isEqualTo("13.0.88");
        assertThat(r.execution().environment().computeSanitizerVersion()).isEqualTo("2025.3.1.0");
        assertThat(ReportJson.read(run.resolve("report.json")).verdict()).isEqualTo(Verdict.FAIL);
        assertThat(console)
                .anyMatch(l -> l.startsWith("[gpu-sanitize] sanitizer-memcheck failed after")
                        && l.contains("100 error record(s)"));
        assertThat(console).noneMatch(l -> l.contains("Host Frame"));
    }

    @Test
    void cleanJobPasses() {
        FakeGpu gpu = new FakeGpu(dir).clean();
        Report r = run(gpu, spec().command(List.of("python3", "train.py")));
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.defects()).isEmpty();
        assertThat(phase(r, "regression").status()).isEqualTo("passed");
        assertThat(r.execution().referenceFailureSeconds()).isNull();
        assertThat(r.memory())
                .singleElement()
                .satisfies(m -> assertThat(m.peakMiB()).isEqualTo(853));
    }

    @Test
    void nearOutOfBoundsIsOnlyVisibleToTheSanitizer() {
        FakeGpu gpu = new FakeGpu(dir)
                .copy("near-oob/memcheck-nocache.log", "memcheck.log")
                .copy("near-oob/memcheck-nocache.xml", "memcheck.xml")
                .copy("near-oob/memcheck-nocache-app.stderr", "memcheck-app.stderr")
                .put("memcheck-app.exit", "134")
                .copy("near-oob/async.stdout", "async.stdout")
                .copy("near-oob/async.stdout", "blocking.stdout");
        Report r = run(gpu, spec());
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.diagnosis().reportedAt()).isNull();
        assertThat(r.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(r.diagnosis().faultEvidence()).isEqualTo("sanitizer");
        assertThat(phase(r, "blocking").status()).isEqualTo("passed");
        assertThat(r.diagnosis().cachingAllocator()).isFalse();
    }

    @Test
    void hangingJobIsKilledWholeAtTheTimeout() throws Exception {
        FakeGpu gpu = new FakeGpu(dir).put("blocking.hang", "");
        Report r = run(gpu, spec().phases(List.of(Phase.BLOCKING)).timeoutSeconds(Phase.BLOCKING, 2));
        PhaseJson p = phase(r, "blocking");
        assertThat(p.status()).isEqualTo("timed-out");
        assertThat(p.timedOut()).isTrue();
        assertThat(p.note()).contains("killed after the timeout of 2.0 s");
        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons()).anyMatch(x -> x.code().equals("timeout"));
        assertNoSurvivors(gpu, "pid-blocking.txt", "children-blocking.txt");
    }

    @Test
    void sanitizerTimeoutKillsTheTargetFirstSoTheToolStillWritesItsXml() throws Exception {
        FakeGpu gpu = new FakeGpu(dir).farOob().put("memcheck-app.hang", "");
        Report r = run(gpu, spec().phases(List.of(Phase.SANITIZER)).timeoutSeconds(Phase.SANITIZER, 2));
        PhaseJson p = phase(r, "sanitizer-memcheck");
        assertThat(p.status()).isEqualTo("timed-out");
        assertThat(p.note()).contains("compute-sanitizer finished writing after the target was stopped");
        assertThat(dir.resolve("run/sanitizer-memcheck/sanitizer.xml")).isNotEmptyFile();
        assertThat(r.sanitizerRuns().get(0).recordsFrom()).isEqualTo("xml");
        assertThat(r.sanitizerRuns().get(0).errorsTotal()).isEqualTo(1603L);
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.reasons()).anyMatch(x -> x.code().equals("timeout"));
        assertNoSurvivors(gpu, "pid-memcheck-app.txt", "children-memcheck-app.txt");
    }

    @Test
    void toolThatExits255WithoutSummaryIsAnError() {
        FakeGpu gpu = new FakeGpu(dir)
                .copy("tool-errors/missing-script.log", "memcheck.log")
                .put("sanitizer.exit", "255")
                .copy("tool-errors/missing-script-app.stderr", "memcheck-app.stderr")
                .put("memcheck-app.exit", "2");
        Report r = run(gpu, spec().phases(List.of(Phase.SANITIZER)));
        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(phase(r, "sanitizer-memcheck").exitCode()).isEqualTo(255);
        assertThat(r.reasons())
                .anyMatch(x ->
                        x.code().equals("tool-failure") && x.message().contains("before first instrumented API call"));
    }

    @Test
    void noGpuIsAOneLineErrorAndStillAReport() {
        FakeGpu gpu = new FakeGpu(dir).put("no-gpu", "");
        Report r = run(gpu, spec());
        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons().get(0).message())
                .startsWith("no GPU: " + gpu.tools.resolve("nvidia-smi") + " failed (exit 9): NVIDIA-SMI has failed")
                .doesNotContain("\n");
        assertThat(r.execution().phases()).isEmpty();
        assertThat(dir.resolve("run/report.json")).isNotEmptyFile();
        assertThat(dir.resolve("run/env/nvidia-smi.txt")).isNotEmptyFile();
    }

    @Test
    void missingComputeSanitizerNamesWhereItLooked() {
        FakeGpu gpu = new FakeGpu(dir).clean().remove("compute-sanitizer");
        Report r = run(gpu, spec());
        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons().get(0).message())
                .startsWith("compute-sanitizer not found: looked in PATH (" + gpu.tools)
                .contains("/usr/local/cuda/bin")
                .endsWith("give --compute-sanitizer PATH");
        // without the sanitizer phase the tool is not needed
        Report r2 = new Runner(
                        spec().outDir(dir.resolve("run2").toString()).phases(List.of(Phase.BLOCKING)),
                        gpu.env(),
                        console::add)
                .run();
        assertThat(r2.verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void regressionStopsCleanlyAtTwiceTheReferenceFailureTime() {
        FakeGpu gpu = new FakeGpu(dir).clean().put("async.sleep", "30");
        Report r = run(gpu, spec().phases(List.of(Phase.REGRESSION)).referenceSeconds(1.0));
        PhaseJson p = phase(r, "regression");
        assertThat(p.status()).isEqualTo("stopped-at-target");
        assertThat(p.stoppedAtTarget()).isTrue();
        assertThat(p.wallSeconds())
                .as("the target, not the job's own end at 30 s")
                .isBetween(2.0, 29.0);
        assertThat(r.execution().regressionTargetSeconds()).isEqualTo(2.0);
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void referenceFailureTimeFromAnEarlierReport() throws IOException {
        FakeGpu gpu = new FakeGpu(dir).farOob();
        run(gpu, spec().phases(List.of(Phase.BLOCKING)));
        Path old = dir.resolve("run/report.json");
        double ttf = ReportJson.read(old).execution().referenceFailureSeconds();
        Report r = run(
                gpu,
                spec().outDir(dir.resolve("run2").toString())
                        .phases(List.of(Phase.REGRESSION))
                        .referenceReport(old.toString()));
        assertThat(r.execution().referenceFailureSeconds()).isEqualTo(ttf);
        assertThat(r.execution().referenceSource()).isEqualTo("report " + old);
        assertThat(r.execution().regressionTargetSeconds()).isEqualTo(2 * ttf);
    }

    @Test
    void throughputBelowBaselineIsUnstable() {
        FakeGpu gpu = new FakeGpu(dir).clean().copy("slowdown/plain-200-steps.stdout", "async.stdout");
        Report ok = run(
                gpu,
                spec().phases(List.of(Phase.REGRESSION))
                        .throughputRegex("it/s ([0-9.]+)")
                        .throughputBaseline(237.0));
        assertThat(ok.execution().throughput().measured()).isBetween(200.0, 240.0);
        assertThat(ok.verdict()).isEqualTo(Verdict.PASS);
        Report slow = run(
                gpu,
                spec().outDir(dir.resolve("run2").toString())
                        .phases(List.of(Phase.REGRESSION))
                        .throughputRegex("it/s ([0-9.]+)")
                        .throughputBaseline(2370.0));
        assertThat(slow.verdict()).isEqualTo(Verdict.UNSTABLE);
        assertThat(slow.reasons()).anyMatch(x -> x.code().equals("throughput"));
    }

    /** The sanitizer run alone, with --stop-after-defects 1. */
    private Report runStoppingAfterOneDefect(FakeGpu gpu) {
        return run(
                gpu,
                spec().phases(List.of(Phase.SANITIZER))
                        .timeoutSeconds(Phase.SANITIZER, 60)
                        .stopAfterDefects(1));
    }

    @Test
    void earlyStopEndsTheSanitizerOnceEnoughDefectsWereSeen() {
        // a job that keeps erroring (hangs under the tool after its first errors): the early stop ends it
        FakeGpu gpu = new FakeGpu(dir).farOob().put("memcheck-app.hang", "");
        Report r = runStoppingAfterOneDefect(gpu);
        PhaseJson p = phase(r, "sanitizer-memcheck");
        assertThat(p.status()).isEqualTo("stopped-early");
        assertThat(p.wallSeconds()).isLessThan(20);
        assertThat(p.note()).contains("stopped early: 1 distinct defect(s) seen (--stop-after-defects 1)");
        assertThat(r.reasons()).anyMatch(x -> x.code().equals("stopped-early"));
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.defects())
                .filteredOn(d -> !d.suppressed())
                .singleElement()
                .satisfies(d -> assertThat(d.kernel()).isEqualTo("scale_shift"));
    }

    /**
     * The early stop counts the records the tool has finished writing. The log holds one whole record and the next
     * one cut short inside the host frame that names the job's line (as the check may read it while compute-sanitizer
     * writes, which made the test above say "2 distinct" now and then): the cut record, which names line 3 instead of
     * 32, is not a defect of its own.
     */
    @Test
    void theEarlyStopCountsOnlyRecordsTheToolFinishedWriting() throws Exception {
        String log = Files.readString(Corpus.file("far-oob/memcheck.log"));
        int second = log.indexOf("\n========= \n") + "\n========= \n".length();
        // inside the line that names the job's line: "train_lstm.py:3" of "train_lstm.py:32"
        int cut = log.indexOf("train_lstm.py:32", second) + "train_lstm.py:3".length();
        assertThat(cut).as("a cut inside the second record's host frames").isGreaterThan(second);
        FakeGpu gpu = new FakeGpu(dir)
                .farOob()
                .put("memcheck.log", log.substring(0, cut))
                .hang("memcheck-app");
        Report r = runStoppingAfterOneDefect(gpu);
        PhaseJson p = phase(r, "sanitizer-memcheck");
        assertThat(p.status()).isEqualTo("stopped-early");
        assertThat(p.note()).contains("stopped early: 1 distinct defect(s) seen (--stop-after-defects 1)");
    }

    @Test
    void independentPhasesRunAtOnceOnSeveralGpus() throws Exception {
        // memcheck's job and the blocking job wait at a gate; the gates open only once both wait at the same
        // time: proof that they run at once, whatever the machine's load (no wall-clock ratio)
        FakeGpu gpu = new FakeGpu(dir)
                .clean()
                .put("async.sleep", "0")
                .put("racecheck.log", Corpus.textRun("rc-race"))
                .put("gpu-count", "3");
        List<Tool> tools = List.of(Tool.MEMCHECK, Tool.RACECHECK);
        Report sequential = run(gpu, spec().tools(tools).phases(List.of(Phase.SANITIZER, Phase.BLOCKING)));
        java.util.concurrent.CompletableFuture<Boolean> together = gpu.gatesOpenTogether("memcheck-app", "blocking");
        Report parallel = run(
                gpu,
                spec().outDir(dir.resolve("run2").toString())
                        .tools(tools)
                        .gpus(List.of("0", "1", "2"))
                        .phases(List.of(Phase.SANITIZER, Phase.BLOCKING)));
        assertThat(together.get(5, java.util.concurrent.TimeUnit.MINUTES))
                .as("memcheck's job and the blocking job waited at their gates at once")
                .isTrue();
        assertThat(parallel.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactlyInAnyOrder("sanitizer-memcheck", "sanitizer-racecheck", "blocking");
        assertThat(parallel.execution().phases()).extracting(PhaseJson::gpu).containsExactlyInAnyOrder("0", "1", "2");
        assertThat(parallel.verdict()).isEqualTo(sequential.verdict()).isEqualTo(Verdict.FAIL);
    }

    @Test
    void runDirectoryIsNeverReused() throws IOException {
        Files.createDirectories(dir.resolve("run"));
        Files.writeString(dir.resolve("run/keep.txt"), "x");
        assertThatThrownBy(() -> run(new FakeGpu(dir).clean(), spec()))
                .isInstanceOf(RunException.class)
                .hasMessageContaining("is not empty");
        assertThat(dir.resolve("run/keep.txt")).exists();
    }

    @Test
    void shellStringsRunThroughShOnly() {
        assertThat(RunSpec.argv(List.of("python3 train.py --steps 5 | tee out.txt")))
                .containsExactly("sh", "-c", "python3 train.py --steps 5 | tee out.txt");
        assertThat(RunSpec.argv(List.of("python3", "train.py", "a b"))).containsExactly("python3", "train.py", "a b");
    }

    private static void assertNoSurvivors(FakeGpu gpu, String... pidFiles) throws InterruptedException {
        Set<Long> pids = new java.util.HashSet<>();
        for (String f : pidFiles) {
            Arrays.stream(gpu.logged(f).split("\\s+"))
                    .filter(s -> !s.isBlank())
                    .map(Long::parseLong)
                    .forEach(pids::add);
        }
        assertThat(pids).as("pids recorded by the fake job").isNotEmpty();
        assertThat(Processes.runningAfter(
                        java.time.Duration.ofMinutes(1),
                        pids.stream().mapToLong(Long::longValue).toArray()))
                .as("survivors")
                .isEmpty();
    }

    @Test
    void aCudaGraphCaptureBrokenByTheUncachedAllocatorIsCheckedAgainWithTheCacheKept() throws IOException {
        FakeGpu gpu = new FakeGpu(dir).cudaGraphCapture();
        Report r = run(gpu, spec());
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons())
                .extracting(ReasonJson::code)
                .contains("capture-conflict", "caching-allocator")
                .doesNotContain("defect");
        PhaseJson first = phase(r, "sanitizer-memcheck");
        assertThat(first.environment()).containsEntry("PYTORCH_NO_CUDA_MEMORY_CACHING", "1");
        assertThat(first.note()).contains("broke the job's CUDA graph capture");
        PhaseJson rerun = phase(r, "sanitizer-memcheck-cached");
        assertThat(rerun.tool()).isEqualTo("memcheck");
        assertThat(rerun.status()).isEqualTo("passed");
        assertThat(rerun.environment()).doesNotContainEntry("PYTORCH_NO_CUDA_MEMORY_CACHING", "1");
        // the broken run is judged too, and its capture errors are the gate's doing: listed, suppressed, never the
        // job's
        assertThat(dir.resolve("run/sanitizer-memcheck/sanitizer.log"))
                .content()
                .contains("cudaErrorStreamCaptureUnsupported");
        assertThat(r.defects())
                .isNotEmpty()
                .allSatisfy(d -> assertThat(d.suppressedBy().rule()).isEqualTo("capture-under-uncached-allocator"));
    }

    @Test
    void computeSanitizerIsAskedForFullPathsUnlessTheUserSaidOtherwise() {
        FakeGpu gpu = new FakeGpu(dir.resolve("default")).clean();
        new Runner(
                        FakeGpu.farOobSpec(dir.resolve("default/run")).phases(List.of(Phase.SANITIZER)),
                        gpu.env(),
                        line -> {})
                .run();
        assertThat(gpu.logged("calls.txt"))
                .contains("compute-sanitizer --tool memcheck")
                .contains("--strip-paths no");

        FakeGpu own = new FakeGpu(dir.resolve("own")).clean();
        new Runner(
                        FakeGpu.farOobSpec(dir.resolve("own/run"))
                                .phases(List.of(Phase.SANITIZER))
                                .extraSanitizerArgs(List.of("--strip-paths=yes")),
                        own.env(),
                        line -> {})
                .run();
        assertThat(own.logged("calls.txt")).contains("--strip-paths=yes").doesNotContain("--strip-paths no");
    }
}
