package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.WorkJson;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.Isolation;
import io.jenkins.plugins.gpusanitizer.testing.RealPython;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #40: each run of the job in its own copy of the working directory, and a PASS only where each run did the
 * job's work. Real training-shaped Python jobs ({@code workspace-jobs/}: they resume from their checkpoint, save and
 * load their model, write numbered output folders, build a cache on first use, or detach) run through real processes
 * with this machine's Python and the stand-in torch, the GPU tools being the stand-ins.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class IsolatedRunsTest {
    private static final List<String> JOBS = List.of(
            "resume_job.py",
            "save_load_job.py",
            "versions_job.py",
            "cache_job.py",
            "launcher.py",
            "worker.py",
            "raw/data.txt");

    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    /** The working directory: the jobs, as a checkout holds them. */
    private Path workspace() throws IOException {
        Path ws = dir.resolve("ws");
        for (String job : JOBS) {
            try (InputStream in = IsolatedRunsTest.class.getResourceAsStream("/workspace-jobs/" + job)) {
                Path to = ws.resolve(job);
                Files.createDirectories(to.getParent());
                Files.copy(in, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return ws;
    }

    /** This machine's own Python (not the stand-in on the job's PATH): the jobs are real programs. */
    private static final String PYTHON = RealPython.path();

    private Report run(String job, boolean beside, UnaryOperator<RunSpec> tweak, Map<String, String> env)
            throws IOException {
        Path ws = workspace();
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean();
        Map<String, String> extra = new LinkedHashMap<>(env);
        extra.put("PYTHONPATH", RealPython.fakeTorch());
        RunSpec spec = new RunSpec()
                .command(List.of(PYTHON + " " + job))
                .python(gpu.tools.resolve("python3").toString())
                .workDir(ws.toString())
                .isolation(Isolation.DEFAULT)
                .outDir(ws.resolve("gpu-sanitize-run").toString())
                .extraEnv(extra)
                .overlapBlocking(beside)
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .samplerIntervalMs(100);
        return new Runner(tweak.apply(spec), gpu.env(), console::add).run();
    }

    private static WorkJson work(Report r, String run) {
        return r.work().stream().filter(w -> w.run().equals(run)).findFirst().orElseThrow();
    }

    private static List<String> codes(Report r) {
        return r.reasons().stream().map(ReasonJson::code).toList();
    }

    @ParameterizedTest(name = "beside: {0}")
    @ValueSource(booleans = {true, false})
    void aJobThatResumesFromItsCheckpointTrainsInFullInEachRun(boolean beside) throws IOException {
        Report r = run("resume_job.py", beside, s -> s, Map.of());

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        for (String run : RunnerTest.runsToTheEnd(r)) {
            WorkJson w = work(r, run);
            assertThat(w.counted()).as(run).isTrue();
            assertThat(w.optimizerSteps()).as(run + ": 5 epochs of 4 steps").isEqualTo(20);
            assertThat(w.cudaProcesses()).as(run).isEqualTo(1);
            assertThat(w.workspace()).as(run).endsWith("workspaces/" + run);
        }
        Path ws = dir.resolve("ws");
        // the build goes on with what one plain run left: the checkpoint of the last epoch, its metrics
        assertThat(Files.readString(ws.resolve("ckpt.json"))).contains("\"epoch\": 4");
        assertThat(Files.readString(ws.resolve("out/metrics.json"))).contains("\"epochs_trained\": 5");
        assertThat(Files.readString(dir.resolve("ws/gpu-sanitize-run/regression/workspace.json")))
                .contains("\"new\"", "ckpt.json", "out/metrics.json");
    }

    @Test
    void withoutIsolationTheRunsThatResumedAndTrainedNothingAreNoPass() throws IOException {
        // steps that take time, as real ones do: a run that resumed at the end ends far sooner than one that trained
        Report r = run(
                "resume_job.py",
                false,
                s -> s.isolation(Isolation.DEFAULT.isolate(false)),
                Map.of("JOB_STEP_SECONDS", "0.1"));

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("less-work"))
                .extracting(ReasonJson::message)
                .anyMatch(m -> m.startsWith("blocking did 0 optimizer step(s) where sanitizer-memcheck did 20")
                        && m.contains("isolation is off"))
                .anyMatch(m -> m.startsWith("regression did 0 optimizer step(s)"));
    }

    /**
     * Issue #47, 11: the second build of a job whose first left its last checkpoint where the job looks (the
     * workspace, written back by the first build, or a folder outside it such as /tmp): every run builds its
     * optimizer, loads its state and trains nothing. The runs agree with each other; the optimizer they built says
     * the job trains, so the build is no PASS, and says where the state was.
     */
    @ParameterizedTest(name = "checkpoint outside the workspace: {0}")
    @ValueSource(booleans = {false, true})
    void aSecondBuildWhoseRunsAllResumedAtTheEndIsNoPass(boolean outside) throws IOException {
        Path checkpoint = outside ? dir.resolve("tmp-clm/ckpt.json") : dir.resolve("ws/ckpt.json");
        Files.createDirectories(checkpoint.getParent());
        Files.writeString(checkpoint, "{\"epoch\": 4, \"optimizer\": {\"state\": {\"0\": 1}}}");
        Report r = run(
                "resume_job.py", true, s -> s, outside ? Map.of("JOB_CHECKPOINT", checkpoint.toString()) : Map.of());

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.UNSTABLE);
        for (String run : List.of("sanitizer-memcheck", "regression")) {
            WorkJson w = work(r, run);
            assertThat(List.of(w.optimizerSteps(), w.optimizersBuilt(), w.optimizerStatesLoaded()))
                    .as(run)
                    .containsExactly(0L, 1L, 1L);
        }
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("no-work"))
                .singleElement()
                .extracting(ReasonJson::message)
                .satisfies(m -> assertThat(m)
                        .startsWith("no run did an optimizer step or a backward pass (sanitizer-memcheck,")
                        .contains("built the job's optimizer and loaded its saved state")
                        .contains(
                                outside
                                        ? checkpoint.toString()
                                        : "what made them skip their training was in the working directory itself"));
        assertThat(codes(r)).doesNotContain("less-work");
    }

    /**
     * Issue #47, 12: the README's shorter sanitizerCommand (2 epochs) after an aborted build left the checkpoint of
     * epoch 3 in the workspace: the sanitizer run finds nothing left to train and ends clean at once, the job's own
     * runs train the last epoch. None of the job's training was checked under the tool: no PASS, naming the run.
     */
    @Test
    void aShorterSanitizerCommandThatFoundItsWorkDoneIsNoPass() throws IOException {
        Path checkpoint = dir.resolve("ws/ckpt.json");
        Files.createDirectories(checkpoint.getParent());
        Files.writeString(checkpoint, "{\"epoch\": 3, \"optimizer\": {}}");
        Report r = run(
                "resume_job.py",
                true,
                s -> s.sanitizerCommand(List.of(PYTHON + " resume_job.py --epochs 2")),
                Map.of());

        assertThat(r.verdict()).as(r.reasons().toString()).isNotEqualTo(Verdict.PASS);
        assertThat(work(r, "sanitizer-memcheck").optimizerSteps()).isZero();
        assertThat(work(r, "regression").optimizerSteps()).as("the last epoch").isEqualTo(4);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("less-work"))
                .extracting(ReasonJson::message)
                .singleElement()
                .satisfies(m -> assertThat(m)
                        .startsWith("sanitizer-memcheck ran a command of its own (sanitizerCommand), not the job's, and"
                                + " did 0 optimizer step(s)")
                        .contains("none of the job's training was checked under the tool"));
    }

    /**
     * Issue #47, 15: a launcher that returns at once, {@code nohup sh -c 'sleep 8; python3 job.py' &}: the phase's
     * leftovers get a while to end on their own (10 s by default, 3 s here); its child is killed before it starts the
     * job, so nothing of the job ran in any run: no PASS, each run named with what was killed unchecked.
     */
    @Test
    void aLauncherThatReturnedLongBeforeTheJobStartedIsNoPass() throws IOException {
        Report r =
                run("resume_job.py", true, s -> s.command(List.of(launcher(8))).leftoverGraceSeconds(3), Map.of());

        assertThat(r.verdict()).as(r.reasons() + "\n" + r.work()).isEqualTo(Verdict.ERROR);
        List<String> outlived = r.reasons().stream()
                .filter(x -> x.code().equals("outlived-main"))
                .map(ReasonJson::message)
                .toList();
        for (String run : List.of("sanitizer-memcheck", "blocking", "regression")) {
            assertThat(outlived)
                    .as(run)
                    .anySatisfy(m -> assertThat(m)
                            .startsWith(run + ": the job's processes outlived its main process and were killed"
                                    + " unchecked")
                            .contains("(sh -c sleep 8; " + PYTHON + " resume_job.py)")
                            .contains("run the job in the foreground"));
            assertThat(work(r, run).processes())
                    .as(run + ": no process of it imported torch")
                    .isZero();
        }
        assertThat(dir.resolve("ws/ckpt.json")).as("the job never trained").doesNotExist();
    }

    /**
     * The same launcher whose job starts 1 s in and ends within the leftovers' wait (the default 10 s, ended as soon as
     * they are gone): each run did the job's work, which was checked.
     */
    @Test
    void aLauncherWhoseJobEndedWithinTheLeftoversWaitIsCheckedInFull() throws IOException {
        Report r = run("resume_job.py", true, s -> s.command(List.of(launcher(1))), Map.of());

        assertThat(r.verdict()).as(r.reasons() + "\n" + r.work()).isEqualTo(Verdict.PASS);
        for (String run : RunnerTest.runsToTheEnd(r)) {
            assertThat(work(r, run).optimizerSteps()).as(run).isEqualTo(20);
        }
    }

    private static String launcher(int seconds) {
        return "nohup sh -c 'sleep " + seconds + "; " + PYTHON + " resume_job.py' > /dev/null 2>&1 &";
    }

    @ParameterizedTest(name = "beside: {0}")
    @ValueSource(booleans = {true, false})
    void aJobThatSavesAndLoadsItsModelEvaluatesItsOwn(boolean beside) throws IOException {
        Report r = run("save_load_job.py", beside, s -> s, Map.of());

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.work())
                .hasSize(3)
                .filteredOn(w -> RunnerTest.runsToTheEnd(r).contains(w.run()))
                .hasSize(RunnerTest.runsToTheEnd(r).size())
                .allSatisfy(w -> assertThat(w.optimizerSteps()).isEqualTo(12));
        assertThat(Files.readString(dir.resolve("ws/model.pt"))).contains("\"steps\": 12");
    }

    @ParameterizedTest(name = "beside: {0}")
    @ValueSource(booleans = {true, false})
    void eachRunWritesTheFirstNumberedFolderAndTheWorkspaceGetsOne(boolean beside) throws IOException {
        Report r = run("versions_job.py", beside, s -> s, Map.of());

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        for (String run : RunnerTest.runsToTheEnd(r)) {
            assertThat(Files.readString(dir.resolve("ws/gpu-sanitize-run/" + run + "/workspace.json")))
                    .as(run)
                    .contains("lightning_logs/version_0/metrics.csv")
                    .doesNotContain("version_1");
        }
        try (var versions = Files.list(dir.resolve("ws/lightning_logs"))) {
            assertThat(versions.map(p -> p.getFileName().toString())).containsExactly("version_0");
        }
    }

    @ParameterizedTest(name = "beside: {0}")
    @ValueSource(booleans = {true, false})
    void eachRunBuildsTheCacheItNeedsOnFirstUse(boolean beside) throws IOException {
        Report r = run("cache_job.py", beside, s -> s, Map.of());

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.work())
                .hasSize(3)
                .filteredOn(w -> RunnerTest.runsToTheEnd(r).contains(w.run()))
                .hasSize(RunnerTest.runsToTheEnd(r).size())
                .allSatisfy(w -> assertThat(w.optimizerSteps()).isEqualTo(12));
        for (String run : RunnerTest.runsToTheEnd(r)) {
            assertThat(Files.readString(dir.resolve("ws/gpu-sanitize-run/" + run + "/stdout.log")))
                    .as(run + " found no cache another run wrote")
                    .contains("processed 3 rows");
        }
    }

    @Test
    void aJobThatFallsBackToTheCpuUnderTheToolIsNoPass() throws IOException {
        Report r = run("resume_job.py", true, s -> s, Map.of("FAKE_TORCH_NO_CUDA_UNDER_TOOL", "1"));

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("no-gpu-work"))
                .extracting(ReasonJson::message)
                .singleElement()
                .satisfies(m -> assertThat(m)
                        .startsWith("sanitizer-memcheck: the job ran (20 optimizer step(s)")
                        .contains("worked on the CPU"));
        assertThat(work(r, "sanitizer-memcheck").cudaProcesses()).isZero();
        assertThat(work(r, "regression").cudaProcesses()).isEqualTo(1);
        if (RunnerTest.runsToTheEnd(r).contains("blocking")) {
            assertThat(work(r, "blocking").cudaProcesses()).isEqualTo(1);
        }
    }

    @Test
    void aLauncherThatReturnsWhileItsTrainingGoesOnIsNoPass() throws IOException {
        Report r = run("launcher.py", false, s -> s.leftoverGraceSeconds(1), Map.of());

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.ERROR);
        assertThat(codes(r)).contains("outlived-main");
        // what the detached training did before it was killed is shown: it stepped on the GPU
        assertThat(r.work()).allSatisfy(w -> assertThat(w.cudaProcesses()).isEqualTo(1));
    }

    @Test
    void aWorkspaceAboveTheLimitStopsTheGateBeforeAnythingRanNamingItsLargestFolder() throws IOException {
        Path ws = workspace();
        Files.createDirectories(ws.resolve("data"));
        Files.write(ws.resolve("data/shard-0.bin"), new byte[3 * 1024 * 1024]);
        Report r = run("resume_job.py", true, s -> s.isolation(Isolation.DEFAULT.limitMiB(2)), Map.of());

        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("workspace"))
                .extracting(ReasonJson::message)
                .singleElement()
                .satisfies(m -> assertThat(m).contains("above the limit of 2 MiB", "data 3.0 MiB", "--share"));
        assertThat(r.execution().phases()).isEmpty();
    }

    @Test
    void aSharedDatasetIsLinkedNotCopiedAndStaysWithinTheLimit() throws IOException {
        Path ws = workspace();
        Files.createDirectories(ws.resolve("data"));
        Files.write(ws.resolve("data/shard-0.bin"), new byte[3 * 1024 * 1024]);
        Report r = run("resume_job.py", true, s -> s.isolation(new Isolation(true, 2, List.of("data"))), Map.of());

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        Path copy = ws.resolve("gpu-sanitize-run/workspaces/blocking");
        assertThat(Files.isSymbolicLink(copy.resolve("data"))).isTrue();
        assertThat(Files.readSymbolicLink(copy.resolve("data")))
                .isEqualTo(ws.toRealPath().resolve("data"));
        assertThat(Files.readString(ws.resolve("gpu-sanitize-run/blocking/workspace.json")))
                .contains("shared (linked, not copied): data");
    }
}
