package io.jenkins.plugins.gpusanitizer.engine.parse.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * nvidia-smi's per-process samples, summed over the phase's own processes pass by pass, on the hand-made
 * two-process card of memory-curves/beside (real H200 figures in the sampler's formats).
 */
class ProcessMemoryCsvParserTest {
    static final String HEADER = "timestamp, pid, used_gpu_memory [MiB]\n";

    @TempDir
    Path dir;

    private final ProcessMemoryCsvParser parser = new ProcessMemoryCsvParser();

    static Path beside(String name) {
        return Corpus.resource("/memory-curves/beside/" + name);
    }

    static MemorySamples card(String name) {
        return new MemoryCsvParser().parse(beside(name)).byGpu().get("0");
    }

    private static GpuPids hostPids() {
        return GpuPids.read(beside("gpu-pids-handmade.txt"));
    }

    private ProcessMemory parse(String text) {
        return parser.parse(Corpus.write(dir, "nvidia-smi-apps.csv", text), hostPids(), null);
    }

    @Test
    void theJobsOwnProcessesAreSummedAndTheOtherIsLeftOut() {
        MemorySamples card = card("other-grows.card-handmade.csv");
        ProcessMemory m = parser.parse(beside("other-grows.apps-handmade.csv"), hostPids(), card);

        assertThat(m.jobPids()).containsExactly(51377L);
        assertThat(m.otherPids()).containsExactly(51234L);
        assertThat(m.unknownPids()).isEmpty();
        assertThat(m.otherPeakMiB()).as("the sanitizer run's staircase").isEqualTo(14357);
        assertThat(m.job().maxUsed())
                .as("the job's plateau, not the card's 15210")
                .isEqualTo(853);
        assertThat(card.maxUsed()).isEqualTo(14357 + 853);
        assertThat(m.badLines()).isZero();
        assertThat(m.unavailable()).isZero();
        assertThat(m.reordered()).isFalse();
        // a 0 at the sampling's start (nvidia-smi lists a process only once it holds memory), on the card's clock
        assertThat(m.job().used(0)).isZero();
        assertThat(m.job().time(0)).isZero();
        assertThat(m.job().startWallMs()).isEqualTo(card.startWallMs());
        assertThat(m.job().totalMiB()).isEqualTo(143771);
        assertThat(m.job().gpu()).isEqualTo("0");
        // one point per pass: every distinct timestamp with a row, after the 0
        assertThat(m.passes()).isEqualTo(m.job().size() - 1);
        assertThat(m.job().time(1))
                .as("the first pass, 3.5 s after the card's first sample")
                .isEqualTo(3.506);
    }

    @Test
    void passesWithoutTheJobCountAsZeroForIt() {
        ProcessMemory m = parse(HEADER
                + "2026/12/02 14:42:03.426, 51234, 631\n"
                + "2026/12/02 14:42:03.677, 51234, 631\n"
                + "2026/12/02 14:42:03.677, 51377, 23\n"
                + "2026/12/02 14:42:03.928, 51234, 700\n");
        assertThat(m.passes()).isEqualTo(3);
        assertThat(m.job().size()).isEqualTo(4);
        assertThat(new double[] {m.job().used(1), m.job().used(2), m.job().used(3)})
                .containsExactly(0, 23, 0);
        assertThat(m.otherPeakMiB()).isEqualTo(700);
    }

    @Test
    void aPidTwiceInOneTimestampStartsTheNextPass() {
        ProcessMemory m =
                parse(HEADER + "2026/12/02 14:42:03.426, 51377, 631\n" + "2026/12/02 14:42:03.426, 51377, 640\n");
        assertThat(m.passes()).isEqualTo(2);
        assertThat(m.job().maxUsed()).isEqualTo(640);
    }

    @Test
    void figuresNvidiaSmiCannotGiveLeaveTheJobWithoutAnyAndAreCounted() {
        ProcessMemory m =
                parser.parse(beside("mig.apps-handmade.csv"), hostPids(), card("other-grows.card-handmade.csv"));
        assertThat(m.jobPids()).isEmpty();
        assertThat(m.unavailable()).isEqualTo(m.passes()).isPositive();
        assertThat(m.job().size()).isZero();
        assertThat(m.badLines()).isZero();
    }

    @Test
    void unitsRepeatedHeadersAndALineCutByTheKillAreTolerated() {
        ProcessMemory m = parse(HEADER
                + "2026/12/02 14:42:03.426, 51377, 631 MiB\n"
                + HEADER
                + "2026/12/02 14:42:03.677, 51377, 853\n"
                + "2026/12/02 14:42:03.928, 513");
        assertThat(m.job().maxUsed()).isEqualTo(853);
        assertThat(m.passes()).isEqualTo(2);
        assertThat(m.badLines()).isEqualTo(1);
    }

    @Test
    void impossibleFiguresNeverReachTheCurve() {
        ProcessMemory m = parse(HEADER
                + "2026/12/02 14:42:03.426, 51377, NaN\n"
                + "2026/12/02 14:42:03.677, 51377, -5\n"
                + "2026/12/02 14:42:03.928, -1, 5\n"
                + "2026/12/02 14:42:04.179, 51377, 1e308\n"
                + "2026/12/02 14:42:04.430, 51377, 853\n");
        assertThat(m.badLines()).isEqualTo(4);
        assertThat(m.job().maxUsed()).isEqualTo(853);
    }

    @Test
    void aSamplerThatListedNoProcessHasNoPasses() {
        ProcessMemory m = parse(HEADER);
        assertThat(m.passes()).isZero();
        assertThat(m.job().size()).isZero();
        assertThat(m.jobPids()).isEmpty();
    }

    @Test
    void aFileOfAnotherQueryIsAOneLineErrorNamingIt() {
        Path csv = Corpus.file("curves/clean.nvidia-smi.csv");
        assertThatThrownBy(() -> parser.parse(csv, hostPids(), null))
                .isInstanceOf(InputException.class)
                .hasMessageContaining(csv.toString())
                .hasMessageContaining("not an nvidia-smi --query-compute-apps CSV")
                .hasMessageNotContaining("\n");
        Path empty = Corpus.write(dir, "empty.csv", "");
        assertThatThrownBy(() -> parser.parse(empty, hostPids(), null))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("empty.csv")
                .hasMessageContaining("empty file");
    }
}
