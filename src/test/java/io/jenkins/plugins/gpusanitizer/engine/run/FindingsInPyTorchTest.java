package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue #25, 3, on the H200 record (records/h200-2026-12-04b.zip.xz, initcheck-tf): a clean bf16 transformer
 * under initcheck gets hundreds of thousands of uninitialized reads inside PyTorch's own elementwise_kernel
 * (the bias add of at::native::linear). They are PyTorch's findings for the call at the job's line, graded
 * by initcheck's action, never "the fault is at" that line; and the run stops itself once the tool stops
 * printing records (the print limit) instead of running into its timeout.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class FindingsInPyTorchTest {
    @TempDir
    Path dir;

    private Path recorded() {
        return Records.unzip("h200-2026-12-04b", dir.resolve("rec")).resolve("c/initcheck-tf");
    }

    @Test
    void theRecordedRunNamesPyTorchsKernelNotTheJobsLine() {
        RunDirectory run = new RunDirectory(recorded());
        Analysis a = run.analyze(run.readRecord(), GatePolicy.defaults(), List.of());

        assertThat(a.diagnosis().faultAt())
                .as("no fault located in the job's code")
                .isNull();
        assertThat(a.diagnosis().summary())
                .startsWith("initcheck found Uninitialized __global__ memory read of size 2 bytes inside PyTorch's"
                        + " own kernel elementwise_kernel (libtorch_cuda.so")
                .contains("for the call at transformer_job.py:36")
                .doesNotContain("The fault is at");
        // the record itself ran into its timeout before this fix: it stays an error
        assertThat(a.gate().verdict().name()).isEqualTo("ERROR");
    }

    @Test
    void theRunStopsItselfAtThePrintLimitAndIsGradedByInitchecksAction() throws Exception {
        String log = Files.readString(recorded().resolve("sanitizer-initcheck/sanitizer.log"), StandardCharsets.UTF_8);
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu"))
                .clean()
                .put("initcheck.log", log)
                .hang("memcheck-app");
        Report r = new Runner(
                        new RunSpec()
                                .command(List.of("python3", "examples/transformer_job.py", "--steps", "6"))
                                .outDir(dir.resolve("run").toString())
                                .tools(List.of(Tool.INITCHECK))
                                .phases(List.of(Phase.SANITIZER))
                                .printLimit(200)
                                .timeoutSeconds(Phase.SANITIZER, 600)
                                .killGraceSeconds(1)
                                .toolWriteGraceSeconds(5),
                        gpu.env(),
                        line -> {})
                .run();

        Report.PhaseJson p = r.execution().phases().get(0);
        assertThat(p.status()).isEqualTo("stopped-early");
        assertThat(p.note()).contains("the print limit of 200 records was reached");
        assertThat(p.wallSeconds()).as("not the 600 s timeout").isLessThan(300);
        assertThat(r.reasons())
                .noneMatch(x -> x.level().equals("error"))
                .anyMatch(x -> x.code().equals("stopped-target") && x.message().contains("couldn't find exit code"));
        assertThat(r.verdict()).isEqualTo(Verdict.UNSTABLE);
        assertThat(r.diagnosis().faultAt()).isNull();
        assertThat(r.diagnosis().summary()).contains("inside PyTorch's own kernel elementwise_kernel");
    }
}
