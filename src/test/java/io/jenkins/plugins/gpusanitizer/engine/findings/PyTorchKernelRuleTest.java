package io.jenkins.plugins.gpusanitizer.engine.findings;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #48, 2, on real initcheck output: PyTorch's own elementwise_kernel records of a clean bf16 transformer (the
 * H200 record h200-2026-12-04c, initcheck-tf) are PyTorch's and do not count unless asked; a user kernel's
 * uninitialized read (cpp-probe's uninit_read, corpus/h200) and cuDNN's LSTM records (h200-2026-12-02, initcheck) keep
 * their own grading.
 */
class PyTorchKernelRuleTest {
    @TempDir
    Path dir;

    private static Analysis analyze(Path log, GatePolicy policy) {
        return new Analyzer()
                .analyze(new AnalysisInput(
                        List.of(new SanitizerInput(log, false, null)), Map.of(), null, null, false, policy, true));
    }

    private static Path transformerLog() {
        return Records.unpacked("h200-2026-12-04c/after/initcheck-tf/sanitizer-initcheck/sanitizer.log");
    }

    @Test
    void pytorchsOwnInitcheckRecordsAreListedAsPyTorchsAndDoNotCount() {
        Analysis a = analyze(transformerLog(), GatePolicy.defaults());

        List<Defect> defects = a.runs().get(0).defects();
        assertThat(defects).isNotEmpty().allSatisfy(d -> {
            assertThat(d.suppressedBy()).isNotNull();
            assertThat(d.suppressedBy().rule()).isEqualTo(PyTorchKernelRule.ID);
            assertThat(d.suppressedBy().reason())
                    .contains("inside PyTorch's own kernel")
                    .contains("libtorch_cuda.so")
                    .contains("--count-pytorch-kernels");
        });
        assertThat(defects.stream().mapToLong(Defect::records).sum()).isEqualTo(200);
        assertThat(a.gate().reasons())
                .as("nothing that gates blames the job's line")
                .noneMatch(r -> r.level().ordinal() <= Reason.Level.UNSTABLE.ordinal()
                        && r.message().contains("transformer_job.py:36"));
    }

    @Test
    void theSettingMakesThemCountAsBefore() {
        Analysis a = analyze(
                transformerLog(), GatePolicy.builder().countPyTorchKernels(true).build());

        assertThat(a.runs().get(0).unsuppressed()).isNotEmpty();
        // the log alone (no run record) also carries the stop's "couldn't find exit code": only the runs's record
        // tells that the gate stopped it, so the defect is looked for among the reasons
        assertThat(a.gate().reasons())
                .anyMatch(r -> r.level() == Reason.Level.UNSTABLE
                        && r.message()
                                .startsWith("initcheck: Uninitialized __global__ memory read of size 2 bytes inside"
                                        + " PyTorch's own kernel elementwise_kernel (libtorch_cuda.so), for the call at"
                                        + " transformer_job.py:36"))
                .as("counted, they are still not blamed on the job's line")
                .noneMatch(r -> r.message().contains("launched from transformer_job.py"));
    }

    @Test
    void anUninitializedReadInTheJobsOwnKernelStaysUnstable() throws Exception {
        Path log = Corpus.write(dir, "initcheck.log", Corpus.textRun("ic-uninit"));

        Analysis a = analyze(log, GatePolicy.defaults());

        assertThat(a.runs().get(0).unsuppressed())
                .singleElement()
                .satisfies(d -> assertThat(d.kernel()).contains("uninit_read"));
        assertThat(a.gate().verdict()).isEqualTo(Verdict.UNSTABLE);
    }

    @Test
    void cudnnsRecordsStayVendorNoise() {
        Analysis a = analyze(
                Records.unpacked("h200-2026-12-02/initcheck/sanitizer-initcheck/sanitizer.log"), GatePolicy.defaults());

        assertThat(a.runs().get(0).defects())
                .isNotEmpty()
                .allSatisfy(d -> assertThat(d.suppressedBy().rule()).isEqualTo(VendorNoiseRule.ID));
    }
}
