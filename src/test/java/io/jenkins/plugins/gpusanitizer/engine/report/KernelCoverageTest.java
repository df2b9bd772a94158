package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.probe.KernelCensus;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which kernels a sanitizer run checked, judged from the recorded H100 census of word_language_model's LSTM (40
 * kernels, the last ones first launched by the evaluation after the training epoch) against the tool's filters.
 */
class KernelCoverageTest {
    static KernelCensus census;

    @BeforeAll
    static void read() throws IOException {
        census = KernelCensus.read(Records.unpacked("h100-2026-12-07-probes/probes/cov/wlm-lstm/census"));
    }

    private static CoverageJson coverage(String... options) {
        List<String> command = new ArrayList<>(List.of("compute-sanitizer", "--tool", "memcheck"));
        command.addAll(List.of(options));
        command.addAll(List.of("python3", "main.py", "--launch-count", "5"));
        return KernelCoverage.of("sanitizer-memcheck", "memcheck", command, census);
    }

    private static Map<String, Long> byStatus(CoverageJson c) {
        return c.kernels().stream().collect(Collectors.groupingBy(CoverageJson.Kernel::checked, Collectors.counting()));
    }

    @Test
    void everyLaunchCheckedIsEveryKernelChecked() {
        CoverageJson c = coverage("--print-limit", "1000");
        assertThat(c.distinct()).isEqualTo(40);
        assertThat(c.checked()).isEqualTo(40);
        assertThat(c.notChecked()).isZero();
        assertThat(byStatus(c)).containsOnlyKeys(KernelCoverage.EVERY_LAUNCH);
        assertThat(c.summary())
                .isEqualTo(
                        "sanitizer-memcheck checked 40 of the 40 distinct kernels the plain run (blocking) launched (every"
                                + " launch of each)");
    }

    @Test
    void aLaunchWindowLeavesTheKernelsFirstLaunchedAfterItUncheckedAndNamesThem() {
        CoverageJson c = coverage("--launch-count", "3000");
        // the job's own --launch-count 5 after its command is the job's, not the tool's
        long late = census.kernels().stream().filter(k -> k.first() >= 3000).count();
        assertThat(late).isPositive();
        assertThat(c.notChecked()).isEqualTo(late);
        assertThat(c.checked()).isEqualTo(40 - late);
        assertThat(c.kernels())
                .filteredOn(k -> k.checked().equals(KernelCoverage.NOT_IN_WINDOW))
                .allSatisfy(k -> assertThat(k.firstLaunch()).isGreaterThanOrEqualTo(3000));
        assertThat(c.summary()).contains(late + " never: sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x64x8");
    }

    @Test
    void nameFiltersAreReplayedAsTheToolDefinesThem() {
        CoverageJson c = coverage("--kernel-name-exclude", "kns=cutlass", "--kernel-name-exclude=regex=^sm[89]0_xmma");
        long cutlassOrXmma = census.kernels().stream()
                .filter(k -> k.name().contains("cutlass") || k.name().matches("^sm[89]0_xmma.*"))
                .count();
        assertThat(c.notChecked()).isEqualTo(cutlassOrXmma);
        assertThat(byStatus(c).get(KernelCoverage.NOT_BY_NAME)).isEqualTo(cutlassOrXmma);

        CoverageJson only = coverage("--kernel-name", "kne=_ZN5cudnn10initstatesEyP17curandStateXORWOW");
        assertThat(only.checked()).isEqualTo(1);
        assertThat(only.notChecked()).isEqualTo(39);
    }

    @Test
    void aWindowUnderANameFilterIsNotGuessed() {
        CoverageJson c = coverage("--kernel-name-exclude", "kns=cutlass", "--launch-count", "300");
        assertThat(c.unknown()).isPositive();
        assertThat(c.kernels())
                .filteredOn(k -> k.checked().equals(KernelCoverage.FIRST_LAUNCHES))
                .allSatisfy(k -> assertThat(k.firstLaunch()).isLessThan(300));
        assertThat(c.summary()).contains("not known from the census");
    }

    @Test
    void aFilterTheCensusCannotReplayMakesEveryKernelUnknown() {
        CoverageJson c = coverage("--kernel-name", "mystery=1");
        assertThat(c.unknown()).isEqualTo(40);
        assertThat(c.problems()).anyMatch(p -> p.contains("--kernel-name mystery=1 (key 'mystery')"));
    }

    @Test
    void noCensusNoCoverage() {
        assertThat(KernelCoverage.of("sanitizer-memcheck", "memcheck", List.of("compute-sanitizer"), null))
                .isNull();
    }
}
