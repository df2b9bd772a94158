package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.probe.CoverageDecision;
import io.jenkins.plugins.gpusanitizer.engine.report.CoverageJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Coverage mode {@code kernels} through the runner (issue #49): the blocking run's kernel census (the one the DDP
 * tutorial's rank wrote on an H100: 15 kernels, 30 domain and name pairs, every one by its first optimizer step), the
 * probe's step-by-step counts beside it, the decision written once the blocking run ended, and the sanitizer run's job
 * (the fake python3, which waits for that decision as the probe would read it) ended at the stop. Ordered by events:
 * the job under the tool goes on only once the runner decided.
 */
@Execution(ExecutionMode.CONCURRENT)
class CoverageStopRunTest {
    private static final long RANK_PID = 4120; // the census file's process
    private static final String PROBE = "{\"type\":\"probe\",\"mode\":\"%s\",\"torch\":\"2.11.0+cu130\",\"pid\":%d}\n";
    private static final String WORK_EXIT =
            "{\"type\":\"work\",\"event\":\"exit\",\"steps\":640,\"backward\":640,\"optimizers\":1,\"loads\":0,"
                    + "\"cuda\":true,\"pid\":%d}\n";

    @TempDir
    Path dir;

    private final List<String> console = java.util.Collections.synchronizedList(new ArrayList<>());

    private RunSpec spec(String out) {
        return new RunSpec()
                .probeMemory(true)
                .command(List.of("python3", "multigpu_torchrun.py", "50", "10"))
                .outDir(dir.resolve(out).toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .progressIntervalSeconds(1)
                .samplerIntervalMs(100)
                .regressionSeconds(600.0);
    }

    /** The DDP tutorial's rank: its census, and the probe's counts: 24 pairs at the first backward pass, 30 by step 1. */
    private FakeGpu ddp(String name, long lastCount) throws IOException {
        FakeGpu gpu = new FakeGpu(dir.resolve(name)).clean();
        Files.createDirectories(gpu.caseDir.resolve("blocking.census"));
        gpu.putFile(
                Records.unpacked("h100-2026-12-07-coverage/cov-b/ddp/census/census-4120.jsonl"),
                "blocking.census/census-4120.jsonl");
        return gpu.put(
                        "blocking.probe.jsonl",
                        String.format(PROBE, "blocking", RANK_PID)
                                + "{\"type\":\"census\",\"hook\":\"backward\",\"steps\":0,\"backward\":1,\"distinct\":24,"
                                + "\"pid\":4120}\n"
                                + "{\"type\":\"census\",\"hook\":\"step\",\"steps\":1,\"backward\":1,\"distinct\":"
                                + lastCount + ",\"pid\":4120}\n"
                                + String.format(WORK_EXIT, RANK_PID))
                .put("async.probe.jsonl", String.format(PROBE, "regression", 9001) + String.format(WORK_EXIT, 9001))
                .put("memcheck-app.probe.jsonl", String.format(PROBE, "sanitizer", 9002))
                .put("memcheck-app.coverage-stop", "");
    }

    private static List<String> codes(Report r) {
        return r.reasons().stream().map(x -> x.code()).toList();
    }

    @Test
    void theSanitizerRunEndsOneStepAfterThePlainRunHadLaunchedEveryKernelAndSaysSo() throws IOException {
        FakeGpu gpu = ddp("gpu", 30);
        Report r = new Runner(spec("run"), gpu.env(), console::add).run();
        Path memcheck = dir.resolve("run").resolve("sanitizer-memcheck");

        assertThat(gpu.logged("env-memcheck-app.txt"))
                .contains(CoverageStop.VARIABLE + "=" + memcheck.resolve(CoverageDecision.STOP_FILE) + "\n");
        CoverageDecision decision = CoverageDecision.read(memcheck);
        assertThat(decision.stops()).isTrue();
        assertThat(List.of(decision.unit(), decision.at(), decision.of(), decision.kernels()))
                .containsExactly("steps", 2L, 640L, 15);
        assertThat(r.verdict()).as(String.join("\n", console)).isEqualTo(Verdict.PASS);
        assertThat(codes(r)).contains(CoverageReasons.STOPPED).doesNotContain("less-work");
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.STOPPED))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .contains("until the job's optimizer step 2 (of the 640 the blocking run took)")
                        .contains("all 15 of its kernels by its optimizer step 1"));
        CoverageJson coverage = r.coverage().get(0);
        assertThat(coverage.checked()).isEqualTo(coverage.distinct()).isEqualTo(15);
        assertThat(coverage.kernels()).allMatch(k -> k.checked().equals("first-launches"));
        assertThat(coverage.summary()).contains("until the coverage stop at the job's optimizer step 2");
        assertThat(console)
                .anyMatch(l -> l.contains("the sanitizer run checks every launch up to its optimizer step 2"));
    }

    @Test
    void aStopDecidedAfterTheJobPassedItEndsTheJobAtItsNextStepAndSaysWhere() throws IOException {
        // on the H100 the hand-written LSTM's sanitizer run was at backward pass 44 when the stop at 3 was written
        FakeGpu gpu = ddp("gpu", 30).put("memcheck-app.coverage-stop", "41");
        Report r = new Runner(spec("run"), gpu.env(), console::add).run();

        assertThat(r.verdict()).as(String.join("\n", console)).isEqualTo(Verdict.PASS);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.STOPPED))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .contains("until the job's optimizer step 43 (of the 640 the blocking run took)")
                        .contains("its stop was set at optimizer step 2, which the job had passed"));
        assertThat(r.coverage().get(0).summary()).contains("until the coverage stop at the job's optimizer step 43");
        assertThat(codes(r)).doesNotContain("less-work");
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.STOPPED))
                .singleElement()
                .satisfies(x -> assertThat(x.message()).doesNotContain("cuDNN"));
    }

    @Test
    void withCudnnsBenchmarkModeOnTheStopSaysItsKernelsMayNotBeTheCensuss() throws IOException {
        FakeGpu gpu = ddp("gpu", 30).put("memcheck-app.cudnn-benchmark", "");
        Report r = new Runner(spec("run"), gpu.env(), console::add).run();

        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.STOPPED))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .endsWith(". cuDNN's benchmark mode was on: it picks its kernels by timing them, and under"
                                + " the tool it may have picked others than the plain run's"));
    }

    @Test
    void kernelsFirstLaunchedAfterTheLastStepKeepTheWholeJobUnderTheTool() throws IOException {
        FakeGpu gpu = ddp("gpu", 28); // two pairs came after the last count: an evaluation at the end
        Report r = new Runner(spec("run"), gpu.env(), console::add).run();
        Path memcheck = dir.resolve("run").resolve("sanitizer-memcheck");

        assertThat(memcheck.resolve(CoverageDecision.STOP_FILE)).doesNotExist();
        assertThat(CoverageDecision.read(memcheck).stops()).isFalse();
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.WHOLE))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .startsWith("sanitizer-memcheck checks the whole job: process 4120 launched 2 new kernel(s)"
                                + " after its last optimizer step or backward pass"));
        assertThat(r.coverage().get(0).kernels()).allMatch(k -> k.checked().equals("every-launch"));
    }

    @Test
    void inModeFullNothingStopsTheRunAndTheReportSaysWhichModeRan() throws IOException {
        FakeGpu gpu = ddp("gpu", 30).drop("memcheck-app.coverage-stop");
        Report r = new Runner(spec("run").coverage(CoverageMode.FULL), gpu.env(), console::add).run();

        assertThat(gpu.logged("env-memcheck-app.txt")).doesNotContain(CoverageStop.VARIABLE);
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.WHOLE))
                .singleElement()
                .satisfies(x -> assertThat(x.message()).contains("every launch of the whole job (coverage full)"));
    }

    @Test
    void againstTheReferenceBuildsReportOnlyAKernelNewSinceThenKeepsTheWholeJobUnderTheTool() throws IOException {
        FakeGpu gpu = ddp("gpu", 30);
        new Runner(spec("first"), gpu.env(), console::add).run();
        Path reference = dir.resolve("first").resolve("report.json");
        Report same = new Runner(spec("same").compareWith(reference.toString()), gpu.env(), console::add).run();
        assertThat(same.reasons()).extracting(x -> x.code()).contains(CoverageReasons.STOPPED);

        // the reference build's plain run never launched the census's last kernel: a new one since
        com.fasterxml.jackson.databind.node.ObjectNode old = (com.fasterxml.jackson.databind.node.ObjectNode)
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(reference.toFile());
        com.fasterxml.jackson.databind.node.ArrayNode kernels = (com.fasterxml.jackson.databind.node.ArrayNode)
                old.get("coverage").get(0).get("kernels");
        String fresh = kernels.get(kernels.size() - 1).get("name").asText();
        kernels.remove(kernels.size() - 1);
        Path older = dir.resolve("older.json");
        new com.fasterxml.jackson.databind.ObjectMapper().writeValue(older.toFile(), old);
        Report r = new Runner(spec("run").compareWith(older.toString()), gpu.env(), console::add).run();

        assertThat(dir.resolve("run").resolve("sanitizer-memcheck").resolve(CoverageDecision.STOP_FILE))
                .doesNotExist();
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.WHOLE))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .contains("1 kernel(s) the plain run launched are new since the reference build (" + fresh));
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("kernels-new"))
                .singleElement()
                .satisfies(x -> assertThat(x.message()).endsWith("sanitizer-memcheck checked 1 of them"));
    }

    @Test
    void withoutTheProbeNothingCanEndTheJobAtAStepAndTheWholeJobIsChecked() throws IOException {
        FakeGpu gpu = ddp("gpu", 30);
        Report r = new Runner(spec("run").probe(false), gpu.env(), console::add).run();

        assertThat(gpu.logged("env-memcheck-app.txt")).doesNotContain(CoverageStop.VARIABLE);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.WHOLE))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .isEqualTo("sanitizer-memcheck checks the whole job: without the probe nothing ends it at a"
                                + " step (coverage kernels)"));
    }

    @Test
    void aSanitizerCommandOfItsOwnIsNotStoppedByTheJobsCensus() throws IOException {
        FakeGpu gpu = ddp("gpu", 30);
        Report r = new Runner(
                        spec("run").sanitizerCommand(List.of("python3 multigpu_torchrun.py 2 1")),
                        gpu.env(),
                        console::add)
                .run();

        assertThat(gpu.logged("env-memcheck-app.txt")).doesNotContain(CoverageStop.VARIABLE);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.WHOLE))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .isEqualTo("sanitizer-memcheck checks the whole job: it runs a command of its own"
                                + " (sanitizerCommand), which the blocking run's census does not describe (coverage"
                                + " kernels)"));
    }

    @Test
    void aStopTheGateNeverSetIsAnErrorNotAPass() throws IOException {
        // a job (or another user) that writes the probe's stop record itself: its run ended where nobody decided
        FakeGpu gpu = ddp("gpu", 30)
                .drop("memcheck-app.coverage-stop")
                .put(
                        "memcheck-app.probe.jsonl",
                        String.format(PROBE, "sanitizer", 9002)
                                + "{\"type\":\"coverage-stop\",\"unit\":\"steps\",\"at\":1,\"steps\":1,\"backward\":1,"
                                + "\"synchronized\":true,\"pid\":9002}\n");
        Report r = new Runner(spec("run").coverage(CoverageMode.FULL), gpu.env(), console::add).run();

        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.UNSET))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .contains(
                                "ended by its probe at steps 1, a coverage stop the gate never set (it decided none"));
    }

    /** What a job prints when it dies under the tool of something other than memory (a crash only there). */
    private static final String CRASH = "Fatal Python error: Segmentation fault\n";

    /** The tool's log of a job that died under it without an error the tool recorded. */
    private static final String DIED = "========= COMPUTE-SANITIZER\n========= Target application returned an error\n"
            + "========= ERROR SUMMARY: 0 errors\n";

    /**
     * A long job's sanitizer run waits under the tool for the blocking run's end, and may die under the tool before it
     * (nanoGPT ran out of the H100's memory at step 21 under memcheck, h100-nanogpt-oom.md): here it died at optimizer
     * step {@code steps} (of memory on a card of its own, or of a crash only under the tool), and only then did the
     * blocking run end (ordered by events: it waits for the sanitizer run's job to have exited). The census puts the
     * stop at step 2.
     */
    private Report diedUnderTheToolAt(long steps, boolean outOfMemory) throws IOException {
        FakeGpu gpu = ddp("gpu", 30)
                .drop("memcheck-app.coverage-stop")
                .put("memcheck.log", outOfMemory ? SanitizerOnlyOomTest.REFUSED : DIED)
                .put("memcheck-app.exit", "1")
                .put("memcheck-app.stderr", outOfMemory ? SanitizerOnlyOomTest.OOM : CRASH)
                .put("memcheck-app.mark-end", "")
                .put("blocking.after", "ended-memcheck-app.txt")
                .put(
                        "memcheck-app.probe.jsonl",
                        String.format(PROBE, "sanitizer", 9002)
                                + "{\"type\":\"work\",\"event\":\"exit\",\"steps\":" + steps + ",\"backward\":"
                                + steps + ",\"optimizers\":1,\"loads\":0,\"cuda\":true,\"pid\":9002}\n");
        RunSpec spec = spec("run");
        if (outOfMemory) { // on a card of its own: a shared card's out-of-memory is run again alone
            gpu.put("gpu-count", "2");
            spec.gpus(List.of("0", "1"));
        }
        return new Runner(spec, gpu.env(), console::add).run();
    }

    @Test
    void aSanitizerRunThatCrashedUnderTheToolPastItsStopDecidedLaterCheckedWhatItWasToCheck() throws IOException {
        Report r = diedUnderTheToolAt(5, false);
        Path memcheck = dir.resolve("run").resolve("sanitizer-memcheck");

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(CoverageDecision.read(memcheck).at()).isEqualTo(2L);
        assertThat(memcheck.resolve(CoverageDecision.STOP_FILE))
                .as("the decision came after the run ended: nothing told its probe to stop")
                .doesNotExist();
        assertThat(console)
                .anyMatch(l -> l.endsWith("sanitizer-memcheck had ended; its coverage stop, decided now, is the job's"
                        + " optimizer step 2 (the blocking run had launched all 15 of its kernels by its optimizer step"
                        + " 1)"));
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(CoverageReasons.STOPPED))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .startsWith("sanitizer-memcheck checked every launch until at least the job's optimizer step 5"
                                + " (of the 640 the blocking run took)")
                        .contains("the stop, decided once the blocking run ended, was at optimizer step 2"));
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("sanitizer-end-past-stop"))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .startsWith("sanitizer-memcheck died (memcheck: the application returned an error")
                        .contains("after it had passed its coverage stop"));
        assertThat(r.reasons()).extracting(x -> x.code()).doesNotContain("sanitizer-only-death", "target-failed");
        CoverageJson coverage = r.coverage().get(0);
        assertThat(coverage.checked()).isEqualTo(15);
        assertThat(coverage.summary())
                .contains("until at least the job's optimizer step 5, past its coverage stop at optimizer step 2");
    }

    @Test
    void anOutOfMemoryOnItsOwnCardPastTheStopIsNoFindingEither() throws IOException {
        Report r = diedUnderTheToolAt(5, true);

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("sanitizer-end-past-stop"))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .startsWith("sanitizer-memcheck ran out of GPU memory (its stderr: torch.OutOfMemoryError:"));
        assertThat(r.reasons()).extracting(x -> x.code()).doesNotContain("sanitizer-only-oom", "sanitizer-rerun");
    }

    @Test
    void aSanitizerRunThatDiedUnderTheToolBeforeItsStopIsNoPassAndItsKernelsAreNotKnown() throws IOException {
        Report r = diedUnderTheToolAt(1, false);

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.UNSTABLE);
        assertThat(r.reasons())
                .extracting(x -> x.code())
                .contains("sanitizer-only-death")
                .doesNotContain(CoverageReasons.STOPPED, CoverageReasons.WHOLE, "sanitizer-end-past-stop");
        CoverageJson coverage = r.coverage().get(0);
        assertThat(coverage.checked()).isZero();
        assertThat(coverage.unknown()).isEqualTo(15);
        assertThat(coverage.summary())
                .contains("(the run ended before the job's end: its job died under the tool)")
                .contains("15 not known: which of them it reached before it ended the census cannot say");
    }
}
