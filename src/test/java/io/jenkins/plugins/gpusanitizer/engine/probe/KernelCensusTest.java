package io.jenkins.plugins.gpusanitizer.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel census as the CUPTI injection writes it: the one recorded on an H100 (pytorch/examples
 * word_language_model, LSTM, one epoch; records/h100-2026-12-07.md, the first format: counts at exit only) and the
 * lines the probe's tests drive the C code to write (test_probe_parts.py CensusTest: first launches at once).
 */
class KernelCensusTest {
    @TempDir
    Path dir;

    @Test
    void theRecordedLstmCensusIsReadInTheDriverDomainThatSawEveryKernel() throws IOException {
        KernelCensus census = KernelCensus.read(Records.unpacked("h100-2026-12-07-probes/probes/cov/wlm-lstm/census"));
        assertThat(census.processes()).isEqualTo(1);
        assertThat(census.complete()).isTrue();
        assertThat(census.problems()).isEmpty();
        // 40 in the driver domain: the runtime domain misses cuBLASLt's cutlass kernels, launched through the driver
        assertThat(census.kernels()).hasSize(40);
        assertThat(census.kernels().stream()
                        .mapToLong(KernelCensus.Kernel::launches)
                        .sum())
                .isEqualTo(451_302);
        assertThat(census.kernels().get(0).name()).contains("FillFunctor");
        assertThat(census.kernels())
                .filteredOn(
                        k -> k.name().startsWith("_ZN7cutlass7Kernel2I50cutlass_80_tensorop_s1688gemm_64x64_32x6_tn"))
                .singleElement()
                .satisfies(k -> assertThat(k.launches()).isEqualTo(15_880));
        // evaluation's GEMMs come after the training epoch: first launched past launch 378,000
        assertThat(census.kernels().get(census.kernels().size() - 1).first()).isGreaterThan(378_000);
    }

    /**
     * The census the shipped C file wrote on the H100 (records/h100-2026-12-07.md, coverage): pytorch/examples dcgan,
     * one process; the DDP tutorial under torchrun, two processes (the launcher's, which launched nothing, and the
     * rank's). First launches are counted per domain: the driver domain's indices are the launch order.
     */
    @Test
    void theShippedCensusFormatIsReadAsTheCardWroteIt() throws IOException {
        KernelCensus dcgan = KernelCensus.read(Records.unpacked("h100-2026-12-07-coverage/cov-b/dcgan/census"));
        assertThat(dcgan.processes()).isEqualTo(1);
        assertThat(dcgan.complete()).isTrue();
        assertThat(dcgan.kernels()).hasSize(112);
        assertThat(dcgan.kernels().stream()
                        .mapToLong(KernelCensus.Kernel::launches)
                        .sum())
                .isEqualTo(14_647);
        assertThat(dcgan.kernels().stream().filter(k -> k.first() >= 3000)).hasSize(3);
        KernelCensus ddp = KernelCensus.read(Records.unpacked("h100-2026-12-07-coverage/cov-b/ddp/census"));
        assertThat(ddp.processes()).isEqualTo(2);
        assertThat(ddp.kernels()).hasSize(15);
        assertThat(ddp.kernels()).allSatisfy(k -> assertThat(k.first()).isLessThan(1500));
    }

    @Test
    void aProcessKilledBeforeItsExitKeepsItsFirstLaunchesWithoutCounts() throws IOException {
        Files.write(
                dir.resolve("census-11.jsonl"),
                List.of(
                        "{\"type\":\"first\",\"domain\":\"runtime\",\"name\":\"gemm\",\"index\":0}",
                        "{\"type\":\"first\",\"domain\":\"driver\",\"name\":\"gemm\",\"index\":0}",
                        "{\"type\":\"first\",\"domain\":\"driver\",\"name\":\"cutlass\",\"index\":3}",
                        "{\"type\":\"first\",\"domain\":\"driver\",\"name\":\"cut"));
        Files.write(
                dir.resolve("census-12.jsonl"),
                List.of(
                        "{\"type\":\"first\",\"domain\":\"driver\",\"name\":\"cutlass\",\"index\":1}",
                        "{\"type\":\"kernel\",\"domain\":\"driver\",\"name\":\"cutlass\",\"launches\":7,\"first\":1}",
                        "{\"type\":\"total\",\"pid\":12,\"launches\":{\"driver\":7,\"runtime\":0},\"distinct\":1,\"overflow\":0}"));
        Files.writeString(dir.resolve("build.log"), "built: cc ...\n");
        KernelCensus census = KernelCensus.read(dir);
        assertThat(census.processes()).isEqualTo(2);
        assertThat(census.complete()).isFalse();
        assertThat(census.kernels())
                .containsExactly(new KernelCensus.Kernel("gemm", 0, null), new KernelCensus.Kernel("cutlass", 1, 7L));
        assertThat(census.problems())
                .containsExactly("census-11.jsonl: 1 line(s) not JSON, skipped (a process cut mid-line)");
    }

    @Test
    void noFolderIsNoCensus() throws IOException {
        assertThat(KernelCensus.read(dir.resolve("missing")).isEmpty()).isTrue();
        assertThat(KernelCensus.read(dir).isEmpty()).isTrue();
    }
}
