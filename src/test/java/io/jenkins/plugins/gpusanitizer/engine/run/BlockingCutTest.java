package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On one GPU the blocking run beside a shorter sanitizer run (a {@code --sanitizer-command} reproduction) is cut
 * once the sanitizer run ended clean: the regression run, which runs the whole job, follows at once; the blocking
 * run runs again in full only when the regression run fails, so a failure is still located by it.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class BlockingCutTest {
    @TempDir
    Path dir;

    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    private RunSpec spec() {
        return FakeGpu.farOobSpec(dir.resolve("run"));
    }

    private static PhaseJson phase(Report r, String name) {
        return RunnerTest.phase(r, name);
    }

    /**
     * A job whose bug the sanitizer's short reproduction never reaches: clean under memcheck (1 s), the whole job
     * fails in the normal run and, after 6 s, in the blocking run (torchrun's traceback when stopped before).
     */
    private FakeGpu lateBug() {
        return new FakeGpu(dir)
                .farOob()
                .put("memcheck.log", FakeGpu.cleanMemcheckLog())
                .drop("memcheck.xml")
                .drop("memcheck-app.stderr")
                .put("memcheck-app.exit", "0")
                .put("memcheck-app.sleep", "1")
                .put("blocking.sleep", "6")
                .copy("torchrun-sigterm/blocking.stderr", "blocking.term-stderr");
    }

    /**
     * The late bug where the blocking run beside the sanitizer run is cut: that run ends only when stopped (never
     * first, whatever the machine's load); run again in full, it fails at once.
     */
    private FakeGpu lateBugCut() {
        return lateBug().put("blocking.first-hold", "").put("blocking.sleep", "0.4");
    }

    @Test
    void aCleanJobsLongBlockingRunIsCutWhenTheSanitizerEndsCleanAndItsStopIsNoFailure() {
        // torchrun prints a SignalException traceback when stopped: that must not read as the job failing
        FakeGpu gpu = new FakeGpu(dir)
                .clean()
                .put("memcheck-app.sleep", "1")
                .put("blocking.first-hold", "") // a long run: it ends only when stopped
                .copy("torchrun-sigterm/blocking.stderr", "blocking.term-stderr");
        Report r = new Runner(spec(), gpu.env(), console::add).run();

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        PhaseJson blocking = phase(r, "blocking");
        assertThat(blocking.status()).isEqualTo(PhaseResult.STOPPED_EARLY);
        assertThat(blocking.note()).startsWith(BlockingPhase.CUT);
        assertThat(dir.resolve("run/blocking/stderr.log")).content().contains("SignalException");
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("blocking-cut") && x.level().equalsIgnoreCase("info"))
                .noneMatch(x -> x.message().contains("SignalException"));
        assertThat(r.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
        assertThat(dir.resolve("run/blocking-cut")).doesNotExist();
    }

    @Test
    void aFailureAfterTheSanitizersShortRunIsLocatedByTheBlockingRunRunAgainInFull() throws Exception {
        FakeGpu gpu = lateBugCut();
        Report r = new Runner(spec(), gpu.env(), console::add).run();

        assertThat(console).anyMatch(line -> line.contains("the blocking run again, in full"));
        assertThat(dir.resolve("run/blocking-cut/stderr.log")).content().contains("SignalException");
        assertThat(r.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
        PhaseJson blocking = phase(r, "blocking");
        assertThat(blocking.status()).isEqualTo(PhaseResult.FAILED);
        assertThat(blocking.note()).contains("run again in full").contains("blocking-cut");
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.diagnosis().faultAt().line())
                .as("the blocking run's line, not the normal run's innocent loss.item()")
                .isEqualTo(32);
        assertThat(r.reasons()).noneMatch(x -> x.code().equals("blocking-cut"));
        // run.json names the full run only, as the report does
        assertThat(Files.readString(dir.resolve("run/run.json"))).doesNotContain(BlockingPhase.CUT);
    }

    @Test
    void aSanitizerRunThatFoundDefectsLeavesTheBlockingRunWhole() {
        FakeGpu gpu = new FakeGpu(dir).farOob().put("blocking.sleep", "4");
        Report r = new Runner(spec(), gpu.env(), console::add).run();

        assertThat(phase(r, "blocking").status()).isEqualTo(PhaseResult.FAILED);
        assertThat(r.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(r.reasons()).noneMatch(x -> x.code().equals("blocking-cut"));
    }

    @Test
    void aSanitizerRunWhoseOnlyErrorsAreSuppressedNoiseIsClean() {
        // the H200's clean torchrun/NCCL job: 8 memcheck records of NCCL probing its kernels, all suppressed
        Path ddpClean = Records.unpacked("h200-2026-12-04-verify/ddp-clean/sanitizer-memcheck/sanitizer.log");
        FakeGpu gpu = new FakeGpu(dir)
                .clean()
                .putFile(ddpClean, "memcheck.log")
                .put("memcheck-app.sleep", "1")
                .put("blocking.first-hold", "");
        Report r = new Runner(spec(), gpu.env(), console::add).run();

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons()).anyMatch(x -> x.code().equals("suppressed"));
        assertThat(phase(r, "blocking").status()).isEqualTo(PhaseResult.STOPPED_EARLY);
    }

    /**
     * A regression run stopped at its target (given, or twice a given reference failure time) or at a time limit
     * shorter than the blocking run's does not run the whole job: the blocking run is the only one that reaches a
     * fault late in the job, so it is not cut.
     */
    @ParameterizedTest
    @ValueSource(strings = {"regression-seconds", "reference-seconds", "timeout"})
    void aRegressionRunThatStopsBeforeTheEndLeavesTheBlockingRunWhole(String bound) {
        // the job fails after 6 s with blocking launches; the regression run stops at 2 s, before it ends by itself
        FakeGpu gpu = lateBug().put("async.first-hold", "");
        RunSpec spec =
                switch (bound) {
                    case "regression-seconds" -> spec().regressionSeconds(2.0);
                    case "reference-seconds" -> spec().referenceSeconds(1.0);
                    default -> spec().timeoutSeconds(Phase.REGRESSION, 2);
                };
        Report r = new Runner(spec, gpu.env(), console::add).run();

        assertThat(phase(r, "regression").status()).isEqualTo(PhaseResult.STOPPED_AT_TARGET);
        assertThat(phase(r, "blocking").status()).isEqualTo(PhaseResult.FAILED);
        assertThat(r.reasons()).noneMatch(x -> x.code().equals("blocking-cut"));
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.FAIL);
        assertThat(r.diagnosis().faultAt().line()).isEqualTo(32);
    }

    @Test
    void withoutOverlapTheBlockingRunIsNeverCut() {
        FakeGpu gpu = new FakeGpu(dir).clean().put("blocking.sleep", "3");
        Report r = new Runner(spec().overlapBlocking(false), gpu.env(), console::add).run();

        assertThat(phase(r, "blocking").status()).isEqualTo(PhaseResult.PASSED);
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void withSeveralGpusTheBlockingRunOnItsOwnCardIsCutTooAndRunAgainWhenTheRegressionFails() {
        FakeGpu gpu = lateBugCut().put("gpu-count", "2");
        Report r = new Runner(spec().gpus(List.of("0", "1")), gpu.env(), console::add).run();

        assertThat(console).anyMatch(line -> line.contains("the blocking run again, in full"));
        assertThat(dir.resolve("run/blocking-cut/stderr.log")).content().contains("SignalException");
        PhaseJson blocking = phase(r, "blocking");
        assertThat(blocking.status()).isEqualTo(PhaseResult.FAILED);
        assertThat(r.diagnosis().faultAt().line()).isEqualTo(32);
    }
}
