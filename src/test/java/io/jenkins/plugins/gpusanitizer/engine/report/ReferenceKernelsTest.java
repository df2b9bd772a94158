package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Kernels new since the reference build, from the census each build's report keeps (issue #49). */
class ReferenceKernelsTest {
    private static Report report(CoverageJson.Kernel... kernels) {
        CoverageJson c = new CoverageJson(
                "sanitizer-memcheck",
                "memcheck",
                "blocking",
                true,
                kernels.length,
                kernels.length,
                0,
                0,
                "s",
                List.of(kernels),
                List.of());
        return Report.builder().verdict(Verdict.PASS).coverage(List.of(c)).build();
    }

    private static CoverageJson.Kernel kernel(String name, String checked) {
        return new CoverageJson.Kernel(name, 0, 1L, checked);
    }

    @Test
    void aKernelTheReferenceNeverLaunchedIsNamedWithWhetherItWasChecked() {
        Report reference = report(kernel("gemm", KernelCoverage.EVERY_LAUNCH));
        Report current = report(
                kernel("gemm", KernelCoverage.EVERY_LAUNCH),
                kernel("triton_poi_fused_add_0", KernelCoverage.EVERY_LAUNCH),
                kernel("my_quantiser", KernelCoverage.NOT_BY_NAME));
        Report compared = ReferenceComparison.apply(current, reference, "build #41", false);
        assertThat(compared.reasons())
                .filteredOn(r -> r.code().equals(ReferenceKernels.CODE))
                .singleElement()
                .satisfies(r -> {
                    assertThat(r.level()).isEqualTo("info");
                    assertThat(r.message())
                            .isEqualTo("2 kernel(s) the plain run launched that build #41's never did: "
                                    + "triton_poi_fused_add_0, my_quantiser; sanitizer-memcheck checked 1 of them");
                });
        assertThat(compared.verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void withoutACensusOnEitherSideNothingIsSaid() {
        Report none = Report.builder().verdict(Verdict.PASS).build();
        Report one = report(kernel("gemm", KernelCoverage.EVERY_LAUNCH));
        assertThat(ReferenceKernels.reasons(one, none, "r")).isEmpty();
        assertThat(ReferenceKernels.reasons(none, one, "r")).isEmpty();
        assertThat(ReferenceKernels.reasons(one, one, "r")).isEmpty();
    }

    @Test
    void theKernelsALaterBuildIsNewAgainstAreEachRunsCensusKernelsOnce() {
        Report two = report(kernel("gemm", KernelCoverage.EVERY_LAUNCH), kernel("softmax", KernelCoverage.UNKNOWN));
        List<CoverageJson> runs = List.of(two.coverage().get(0), two.coverage().get(0)); // memcheck and initcheck
        assertThat(CoverageJson.kernelNames(runs)).containsExactly("gemm", "softmax");
        assertThat(CoverageJson.kernelNames(null)).isEmpty();
        assertThat(CoverageJson.kernelNames(List.of())).isEmpty();
    }
}
