package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue #25, 2: a job compiled with torch.compile(mode="reduce-overhead") runs under the sanitizer in the
 * default mode (the probe's sanitizer mode, replayed here by the stand-in job writing what the probe
 * wrote): the gate says what the tool checked and what it did not, on the phase and in the report, and
 * the clean job passes. Recorded on the H200 before the fix: records/h200-2026-12-04b.zip.xz, compile-ro
 * (ERROR "the job died"); the fix is checked there by examples/h200/capture-2026-12-04b.sh.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class CompileModeTest {
    @TempDir
    Path dir;

    private static final String CHANGED =
            "{\"type\":\"probe\",\"mode\":\"sanitizer\",\"compileWrapped\":true,\"pid\":7}\n"
                    + "{\"type\":\"compile-mode\",\"requested\":\"mode='reduce-overhead'\",\"ran\":\"default\","
                    + "\"at\":{\"file\":\"/ws/examples/compile_job.py\",\"line\":69,\"function\":\"main\"},\"pid\":7}\n"
                    + "{\"type\":\"exit\",\"probeSeconds\":0.0,\"pid\":7}\n";

    @Test
    void aCompiledJobRunsInTheDefaultModeUnderTheToolAndTheReportSaysWhatWasNotChecked() {
        // the plain runs import torch too: a run whose probe wrote nothing while another's did would be a dropped probe
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu"))
                .clean()
                .put("memcheck-app.probe.jsonl", CHANGED)
                .put("blocking.probe.jsonl", "{\"type\":\"probe\",\"mode\":\"blocking\",\"pid\":8}\n")
                .put("async.probe.jsonl", "{\"type\":\"probe\",\"mode\":\"regression\",\"pid\":9}\n");
        List<String> console = new ArrayList<>();
        Report r = new Runner(
                        new RunSpec()
                                .command(List.of("python3", "examples/compile_job.py", "--mode", "reduce-overhead"))
                                .outDir(dir.resolve("run").toString())
                                .killGraceSeconds(1)
                                .toolWriteGraceSeconds(5)
                                .samplerIntervalMs(100),
                        gpu.env(),
                        console::add)
                .run();

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons()).anySatisfy(reason -> {
            assertThat(reason.code()).isEqualTo("compile-mode");
            assertThat(reason.message())
                    .startsWith("torch.compile(mode='reduce-overhead' at compile_job.py:69) ran in the default"
                            + " mode under memcheck")
                    .contains("not the CUDA graph replay or the autotuned kernel choices");
        });
        PhaseJson sanitizer = r.execution().phases().stream()
                .filter(p -> p.name().equals("sanitizer-memcheck"))
                .findFirst()
                .orElseThrow();
        assertThat(sanitizer.note()).contains("ran in the default mode under memcheck");
    }

    /**
     * The H200 record from before the fix (the probe was not in the sanitizer phase then): the job died only
     * under compute-sanitizer, with no error recorded, while the blocking and regression runs passed. Not an
     * ERROR blamed on a clean job: UNSTABLE, saying the job and the tool did not run together.
     */
    @Test
    void aJobThatDiesOnlyUnderTheToolIsUnstableNotAnError() {
        Path recorded = Records.unzip("h200-2026-12-04b", dir.resolve("rec")).resolve("c/compile-ro");
        RunDirectory run = new RunDirectory(recorded);
        Analysis a = run.analyze(run.readRecord(), GatePolicy.defaults(), List.of());

        assertThat(a.gate().verdict().name()).isEqualTo("UNSTABLE");
        assertThat(a.gate().reasons())
                .noneMatch(r -> r.level() == Reason.Level.ERROR)
                .anySatisfy(r -> {
                    assertThat(r.code()).isEqualTo("sanitizer-only-death");
                    assertThat(r.message())
                            .contains("the job died only under compute-sanitizer: the blocking and regression runs"
                                    + " passed")
                            .contains("not a bug found")
                            .as("no cause is said without evidence for it (issue #48)")
                            .contains("What made it die under the tool is not known to the gate")
                            .doesNotContain("so this is the job and the tool not running together");
                });
    }

    @Test
    void aDeathUnderTheToolIsStillAnErrorWhenTheJobAlsoFailsWithoutIt() {
        // the same job, its regression run failing too: the death under the tool is the job's, an error
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu"))
                .clean()
                .put("memcheck-app.exit", "1")
                .put("memcheck-app.stderr", "RuntimeError: a broken job\n")
                .put("async.exit", "1")
                .put("async.stderr", "RuntimeError: a broken job\n");
        Report r = new Runner(FakeGpu.spec(dir.resolve("broken"), "python3", "train.py"), gpu.env(), line -> {}).run();
        assertThat(r.reasons()).noneMatch(reason -> reason.code().equals("sanitizer-only-death"));
        assertThat(r.verdict()).isNotEqualTo(Verdict.PASS);
    }

    @Test
    void withoutTheProbeNothingIsSaid() {
        // the plain runs import torch too: a run whose probe wrote nothing while another's did would be a dropped probe
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu"))
                .clean()
                .put("memcheck-app.probe.jsonl", CHANGED)
                .put("blocking.probe.jsonl", "{\"type\":\"probe\",\"mode\":\"blocking\",\"pid\":8}\n")
                .put("async.probe.jsonl", "{\"type\":\"probe\",\"mode\":\"regression\",\"pid\":9}\n");
        Report r = new Runner(
                        new RunSpec()
                                .command(List.of("python3", "train.py"))
                                .outDir(dir.resolve("off").toString())
                                .probe(false)
                                .killGraceSeconds(1)
                                .toolWriteGraceSeconds(5)
                                .samplerIntervalMs(100),
                        gpu.env(),
                        line -> {})
                .run();
        assertThat(gpu.logged("env-memcheck-app.txt")).doesNotContain("GPU_SANITIZE_PROBE");
        assertThat(r.reasons()).noneMatch(reason -> reason.code().equals("compile-mode"));
    }
}
