package io.jenkins.plugins.gpusanitizer.engine.findings;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue #48, 2-3, why initcheck runs on every kernel (examples/public/initcheck/scope.sh on an H100, 2026-12-07,
 * records/h100-2026-12-07.md): examples/mask_tail_job.py, whose CuPy kernel apply_mask reads a mask of 65,536 floats
 * and the output of torch.randn, 10 steps. Unfiltered (the scope's "supp" case: its suppression file matched nothing,
 * the transformer case showed), initcheck counts exactly the 4,096 unwritten tail floats each step; with PyTorch's
 * kernels left out (kns=_ZN2at6native) a clean run of the same job (no unwritten tail) gets a hundred thousand reads
 * in its own kernel, of what torch.randn wrote while the tool did not look.
 */
class InitcheckScopeH100RecordTest {
    private static Analysis analyze(String log) {
        return new Analyzer()
                .analyze(new AnalysisInput(
                        List.of(new SanitizerInput(
                                Records.unpacked("h100-2026-12-07-probes/probes/scope/" + log), false, null)),
                        Map.of(),
                        null,
                        null,
                        false,
                        GatePolicy.defaults(),
                        true));
    }

    @Test
    void unfilteredInitcheckCountsExactlyTheMasksUnwrittenTailInTheJobsOwnKernel() {
        Analysis a = analyze("mask-tail-supp.log");

        assertThat(a.runs().get(0).errorsTotal()).isEqualTo(10L * 4096);
        assertThat(a.runs().get(0).unsuppressed())
                .isNotEmpty()
                .allSatisfy(d -> assertThat(d.kernel()).isEqualTo("apply_mask"));
        assertThat(a.gate().verdict()).isEqualTo(Verdict.UNSTABLE);
    }

    @Test
    void withPyTorchsKernelsLeftOutACleanJobsOwnKernelReadsAsUninitialized() {
        Analysis a = analyze("mask-clean-kns-noapi.log");

        assertThat(a.runs().get(0).errorsTotal())
                .as("a clean job: no unwritten tail, yet more than the buggy job's count unfiltered")
                .isGreaterThan(10L * 4096);
        assertThat(a.runs().get(0).unsuppressed())
                .isNotEmpty()
                .allSatisfy(d -> assertThat(d.kernel()).isEqualTo("apply_mask"));
        assertThat(a.gate().verdict())
                .as("the verdict such a filter would give a clean job: why the gate passes initcheck none")
                .isEqualTo(Verdict.UNSTABLE);
    }
}
