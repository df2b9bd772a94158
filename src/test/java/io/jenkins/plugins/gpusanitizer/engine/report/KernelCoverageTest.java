package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import io.jenkins.plugins.gpusanitizer.engine.probe.KernelCensus;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    /** A run directory with the wlm census as its blocking run's and one sanitizer run that ended as given. */
    private static List<CoverageJson> forRunEnded(Path root, String status, int exit, String log) throws IOException {
        Path census = Files.createDirectories(root.resolve("blocking/census"));
        try (var files = Files.list(Records.unpacked("h100-2026-12-07-probes/probes/cov/wlm-lstm/census"))) {
            for (Path f : files.toList()) {
                Files.copy(f, census.resolve(f.getFileName().toString()));
            }
        }
        Path phase = Files.createDirectories(root.resolve("sanitizer-memcheck"));
        Files.writeString(phase.resolve("sanitizer.log"), log);
        // the tool's log as the analysis reads it, into the report's sanitizerRuns[]
        SanitizerOutput out = new SanitizerTextParser().parse(phase.resolve("sanitizer.log"), null, r -> {});
        SanitizerRunJson run = new SanitizerRunJson(
                "memcheck",
                "text",
                out.source(),
                null,
                out.errorsTotal(),
                null,
                0,
                0,
                0,
                out.complete(),
                out.targetReturnedError(),
                out.appCrashed(),
                null,
                List.of(),
                List.of());
        PhaseJson p = new PhaseJson(
                "sanitizer-memcheck",
                "memcheck",
                List.of("compute-sanitizer", "--tool", "memcheck", "python3", "main.py"),
                Map.of(),
                "0",
                status,
                exit,
                null,
                40,
                null,
                false,
                false,
                List.of(),
                null);
        return KernelCoverage.forRun(
                root, new ExecutionJson(null, List.of(p), root.toString(), null, null, null, null, null), List.of(run));
    }

    /**
     * compute-sanitizer exits with its error code for what it counted also when its target died (nanoGPT's refused
     * cudaMalloc, h100-nanogpt-oom.md): a run whose job died, or that the gate stopped, reached an unknown share of the
     * census, never "every launch of each".
     */
    @Test
    void aRunWhoseJobDiedOrWasStoppedClaimsNoKernelChecked(@TempDir Path dir) throws IOException {
        String summary = "========= ERROR SUMMARY: 1 error\n";
        CoverageJson died = forRunEnded(
                        dir.resolve("died"),
                        "failed",
                        86,
                        "========= COMPUTE-SANITIZER\n========= Target application returned an error\n" + summary)
                .get(0);
        assertThat(died.checked()).isZero();
        assertThat(died.unknown()).isEqualTo(40);
        assertThat(died.summary())
                .contains("(the run ended before the job's end: its job died under the tool)")
                .endsWith("; 40 not known: which of them it reached before it ended the census cannot say");

        CoverageJson stopped = forRunEnded(dir.resolve("stopped"), "stopped-early", 86, summary)
                .get(0);
        assertThat(stopped.summary()).contains("the gate stopped it");

        CoverageJson whole =
                forRunEnded(dir.resolve("whole"), "failed", 86, summary).get(0);
        assertThat(whole.checked())
                .as("the tool exited with its code once the job ended: every launch")
                .isEqualTo(40);
    }
}
