package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.MemoryCsvParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.MemorySamples;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryCurveAnalyzerTest {
    private final MemoryCurveAnalyzer analyzer = new MemoryCurveAnalyzer();

    private MemoryCurve curve(String name) {
        MemorySamples s = new MemoryCsvParser()
                .parse(Corpus.file("curves/" + name + ".nvidia-smi.csv"))
                .byGpu()
                .get("0");
        return analyzer.analyze(s, name, "default");
    }

    @Test
    void leakGrowsThroughTheRun() {
        MemoryCurve c = curve("leak");
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.peakMiB()).isEqualTo(14357);
        // the job adds 64 MiB per step, ~1,150-1,250 MiB/s as sampled: the rate is per minute
        assertThat(c.growthMiBPerMin()).isBetween(60_000.0, 80_000.0);
        assertThat(c.describe()).startsWith("growing ").contains("MiB/min");
    }

    @Test
    void stableCurvesAfterWarmUpWithTheirPeaks() {
        assertThat(curve("clean")).satisfies(c -> {
            assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.STABLE);
            assertThat(c.peakMiB()).isEqualTo(853);
            assertThat(c.baselineMiB()).isZero();
            assertThat(c.warmupSeconds()).isCloseTo(5.0, within(0.5));
        });
        assertThat(curve("frag").peakMiB()).isEqualTo(2425);
        assertThat(curve("frag").shape()).isEqualTo(MemoryCurve.Shape.STABLE);
        assertThat(curve("frag-expandable").peakMiB()).isEqualTo(1093);
        assertThat(curve("frag-expandable").shape()).isEqualTo(MemoryCurve.Shape.STABLE);
    }

    @Test
    void tooFewSamplesIsUnknownNotStable() {
        MemorySamples s = new MemorySamples("0");
        s.add(0, 0, 100);
        s.add(0.25, 600, 100);
        assertThat(analyzer.analyze(s, "x", "default").shape()).isEqualTo(MemoryCurve.Shape.UNKNOWN);
    }

    @Test
    void csvErrors(@TempDir Path dir) {
        assertThatThrownBy(() -> new MemoryCsvParser().parse(Corpus.write(dir, "m.csv", "")))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("m.csv: empty file");
        assertThatThrownBy(() -> new MemoryCsvParser().parse(Corpus.write(dir, "n.csv", "a,b\n1,2\n")))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("header needs timestamp and memory.used");
        var r = new MemoryCsvParser()
                .parse(
                        Corpus.write(
                                dir,
                                "cut.csv",
                                "timestamp, index, memory.used [MiB], memory.total [MiB]\n2026/12/02 14:41:59.920, 0, 5, 100\n2026/12/02 14:42"));
        assertThat(r.badLines()).isEqualTo(1);
        assertThat(r.byGpu().get("0").size()).isEqualTo(1);
    }
}
