package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.MemoryCsvParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.MemorySamples;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MemoryCurveAnalyzerTest {
    static final double H200_MIB = 143771;
    static final Path RECORD = Records.unpacked("h200-2026-12-02");

    private final MemoryCurveAnalyzer analyzer = new MemoryCurveAnalyzer();

    private MemoryCurve curve(String name) {
        return analyze(Corpus.file("curves/" + name + ".nvidia-smi.csv"), analyzer);
    }

    /** The curves of issue #11, synthesized in the H200's format (see memory-curves/issue-11/README.md). */
    static Path issue11(String name) {
        return Corpus.resource("/memory-curves/issue-11/" + name + ".nvidia-smi.csv");
    }

    static MemoryCurve analyze(Path csv, MemoryCurveAnalyzer a) {
        MemorySamples s = new MemoryCsvParser().parse(csv).byGpu().get("0");
        return a.analyze(s, csv.getFileName().toString(), "default");
    }

    /** A job of {@code seconds} sampled every 250 ms on an H200, idle for 2 s before and after. */
    static MemorySamples job(double seconds, DoubleUnaryOperator usedAt) {
        MemorySamples s = new MemorySamples("0");
        double t = 0;
        for (; t < 2; t += 0.25) {
            s.add(t, 0, H200_MIB);
        }
        for (double j = 0; j <= seconds; j += 0.25, t += 0.25) {
            s.add(t, Math.floor(usedAt.applyAsDouble(j)), H200_MIB);
        }
        for (int i = 0; i < 4; i++, t += 0.25) {
            s.add(t, 0, H200_MIB);
        }
        return s;
    }

    @Test
    void leakGrowsThroughTheRun() {
        MemoryCurve c = curve("leak");
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.peakMiB()).isEqualTo(14357);
        // the job adds 64 MiB per step, ~1,150-1,250 MiB/s as sampled: the rate is per minute
        assertThat(c.growthMiBPerMin()).isBetween(60_000.0, 80_000.0);
        assertThat(c.totalMiB()).isEqualTo(H200_MIB);
        assertThat(c.hoursToFull()).isBetween(1.5 / 60, 2.5 / 60);
        assertThat(c.fillsWithin(MemoryCurve.Policy.DEFAULT.fillHorizonHours())).isTrue();
        assertThat(c.describe())
                .startsWith("growing ")
                .contains("MiB/min", "full in 2 min", "within the fill horizon of 7 days");
    }

    @Test
    void stableCurvesAfterWarmUpWithTheirPeaks() {
        assertThat(curve("clean")).satisfies(c -> {
            assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.STABLE);
            assertThat(c.peakMiB()).isEqualTo(853);
            assertThat(c.baselineMiB()).isZero();
            assertThat(c.warmupSeconds()).isCloseTo(5.0, within(0.5));
            assertThat(c.trendMiBPerMin()).isZero();
            assertThat(c.hoursToFull()).isNull();
            assertThat(c.judgedToSeconds() - c.judgedFromSeconds()).isGreaterThan(15);
            assertThat(c.describe()).startsWith("stable after 5.0 s warm-up, peak 853 MiB");
        });
        assertThat(curve("frag").peakMiB()).isEqualTo(2425);
        assertThat(curve("frag").shape()).isEqualTo(MemoryCurve.Shape.STABLE);
        assertThat(curve("frag-expandable").peakMiB()).isEqualTo(1093);
        assertThat(curve("frag-expandable").shape()).isEqualTo(MemoryCurve.Shape.STABLE);
    }

    /**
     * Issue #11 (a): logits kept in a list: +2 MiB steps at ~1.6 MiB/s after warm-up, 825 to 853 MiB
     * over 18 s. Every rise is below the old 4 MiB noise threshold; it fills the H200 in ~25 h.
     */
    @Test
    void slowLeakInTheAllocatorsSmallStepsIsGrowth() {
        MemoryCurve c = analyze(issue11("leak-logits"), analyzer);
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.growthMiBPerMin()).isBetween(85.0, 105.0);
        assertThat(c.hoursToFull()).isBetween(22.0, 28.0);
        assertThat(c.fillsWithin(168)).isTrue();
        assertThat(c.fillsWithin(12)).isFalse();
        assertThat(c.describe()).contains("full in 25 h");
    }

    /**
     * Issue #11 (b): cudnn.benchmark: 621 MiB for 4.5 s, then 641, 673, 881, 893 MiB in the last second
     * (autotuning workspaces), then the job ends. Not a leak: too short to judge.
     */
    @Test
    void autotuningInTheLastSecondOfAShortRunIsTooShortToJudge() {
        MemoryCurve c = analyze(issue11("cudnn-bench"), analyzer);
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.UNKNOWN);
        assertThat(c.growthMiBPerMin()).isZero();
        assertThat(c.peakMiB()).isEqualTo(893);
        assertThat(c.describe()).startsWith("too short to judge: ").contains("10 s needed");
        // with no minimum the flat part is judged and the late rise is start-up, not a trend
        MemoryCurve judged = analyze(issue11("cudnn-bench"), new MemoryCurveAnalyzer(new MemoryCurve.Policy(0, 168)));
        assertThat(judged.shape()).isEqualTo(MemoryCurve.Shape.STABLE);
        assertThat(judged.lateRiseMiB()).isEqualTo(272);
        assertThat(judged.describe()).contains("+272 MiB in the run's last", "not a trend");
    }

    static Path h200Dec3(String name) {
        return Corpus.resource("/corpus/h200-2026-12-03/curves/" + name + ".nvidia-smi.csv");
    }

    /**
     * The real leak-logits job on the H200 (corpus/h200-2026-12-03): 821 MiB after warm-up, then +2 MiB
     * every 1.0-1.25 s to 847 MiB (26 MiB in 15.5 s, ~100 MiB/min); the old analyzer said stable.
     */
    @Test
    void realLogitsLeakOnTheH200() {
        MemoryCurve c = analyze(h200Dec3("leak-logits"), analyzer);
        assertThat(c.shape()).as(c.describe()).isEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.growthMiBPerMin()).isBetween(90.0, 110.0);
        assertThat(c.hoursToFull()).isBetween(22.0, 26.0);
        assertThat(c.fillsWithin(168)).isTrue();
        assertThat(c.peakMiB()).isEqualTo(847);
    }

    /**
     * The real cudnn-bench job on the H200: 621 MiB, then cuDNN autotuning raises it to 1139 MiB 7.8 s
     * into the 15.5 s job, falling back to 999, a late shape at 1057, 883 at the end. The old analyzer
     * said "grows 207 MiB/min" (UNSTABLE) for this clean job: warm-up took half the run.
     */
    @Test
    void realCudnnBenchmarkOnTheH200IsTooShortToJudge() {
        MemoryCurve c = analyze(h200Dec3("cudnn-bench"), analyzer);
        assertThat(c.shape()).as(c.describe()).isEqualTo(MemoryCurve.Shape.UNKNOWN);
        assertThat(c.growthMiBPerMin()).isZero();
        assertThat(c.peakMiB()).isEqualTo(1139);
        assertThat(c.warmupSeconds()).isCloseTo(7.8, within(0.1));
        assertThat(c.describe()).startsWith("too short to judge: warm-up (up to the 1139 MiB level) took 7.8 s");
        // judged however short: memory went up during warm-up and came back down, not a leak
        MemoryCurve any = analyze(h200Dec3("cudnn-bench"), new MemoryCurveAnalyzer(new MemoryCurve.Policy(0, 168)));
        assertThat(any.shape()).as(any.describe()).isEqualTo(MemoryCurve.Shape.STABLE);
    }

    /** The regression runs recorded on the H200 (records/h200-2026-12-02.zip.xz): the jobs crash or end within ~5 s. */
    @ParameterizedTest
    @ValueSource(strings = {"clean", "far", "index", "near", "triton"})
    void shortRegressionRunsOnTheH200AreNotJudged(String run) {
        MemoryCurve c = analyze(RECORD.resolve(run).resolve("regression/nvidia-smi.csv"), analyzer);
        assertThat(c.shape()).as(c.describe()).isEqualTo(MemoryCurve.Shape.UNKNOWN);
        assertThat(c.describe()).startsWith("too short to judge");
    }

    @Test
    void leakRegressionRunOnTheH200Grows() {
        MemoryCurve c = analyze(RECORD.resolve("leak/regression/nvidia-smi.csv"), analyzer);
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.growthMiBPerMin()).isBetween(60_000.0, 80_000.0);
    }

    @Test
    void aLateStepAfterALongFlatRunIsStable() {
        // 10 min at 900 MiB, then an evaluation pass allocates 300 MiB in the last second
        MemoryCurve c = analyzer.analyze(job(600, t -> t < 1 ? 600 : t < 599 ? 900 : 1200), "x", "default");
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.STABLE);
        assertThat(c.lateRiseMiB()).isEqualTo(300);
        assertThat(c.peakMiB()).isEqualTo(1200);
        assertThat(c.warmupSeconds()).isLessThan(2);
    }

    @Test
    void aSingleStepMidRunIsNotGrowth() {
        MemoryCurve c = analyzer.analyze(job(600, t -> t < 1 ? 600 : t < 300 ? 900 : 1400), "x", "default");
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.STABLE);
        assertThat(c.growthMiBPerMin()).isZero();
    }

    @Test
    void aFewStepsFromOneOffEventsAreNotGrowth() {
        // nanoGPT with torch.compile: compiled at 20 s, first steps to 30 s, then the last evaluation at 50 s;
        // window medians that rise 3 times in 4, new highs in the last quarter, but one step holds most of the rise
        DoubleUnaryOperator events = t -> t < 20 ? 600 : t < 30 ? 700 : t < 50 ? 1000 : 2300;
        MemoryCurve c = analyzer.analyze(job(60, events), "x", "default");
        assertThat(c.shape()).as(c.describe()).isNotEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.growthMiBPerMin()).isZero();
    }

    @Test
    void aLeakInWholeStepsGrows() {
        // 512 MiB kept every 8 s (an epoch's results on the GPU): steps too, but every fifth of the window has some
        MemoryCurve c = analyzer.analyze(job(60, t -> 900 + 512 * Math.floor(t / 8)), "x", "default");
        assertThat(c.shape()).as(c.describe()).isEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.growthMiBPerMin()).isBetween(3000.0, 4700.0);
    }

    @Test
    void startUpLateInTheRunIsNotGrowth() {
        // 15 s of CUDA context only (data loading), then training warms up over 3 s and holds
        DoubleUnaryOperator late = t -> t < 15 ? 631 : 631 + 80 * Math.min(3, Math.floor(t - 15));
        MemoryCurve c = analyzer.analyze(job(40, late), "x", "default");
        assertThat(c.shape()).as(c.describe()).isEqualTo(MemoryCurve.Shape.STABLE);
        assertThat(c.peakMiB()).isEqualTo(871);
        assertThat(c.warmupSeconds()).isCloseTo(18, within(0.3));
        // the judged window starts where memory reached its level, past the first quarter
        assertThat(c.judgedFromSeconds()).isCloseTo(2 + 18, within(0.3));
        // the same job stopped 6 s after its warm-up: too short to tell
        MemoryCurve cut = analyzer.analyze(job(24, late), "x", "default");
        assertThat(cut.shape()).isEqualTo(MemoryCurve.Shape.UNKNOWN);
        assertThat(cut.describe()).startsWith("too short to judge: warm-up (up to the 871 MiB level) took 18.0 s");
    }

    @Test
    void memoryThatComesBackDownIsNotGrowth() {
        // a 60 s evaluation every 150 s allocates 2 GiB and frees it
        MemoryCurve c = analyzer.analyze(job(900, t -> t < 1 ? 600 : (t % 150) > 90 ? 3000 : 1000), "x", "default");
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.STABLE);
    }

    @Test
    void growthThatStopsIsACacheFillingNotALeak() {
        // a cache filling over the first half, then held for 5 min
        MemoryCurve c = analyzer.analyze(job(600, t -> 800 + 2 * Math.min(t, 300)), "x", "default");
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.STABLE);
    }

    @Test
    void aLeakThatStartsMidRunGrows() {
        MemoryCurve c =
                analyzer.analyze(job(1200, t -> t < 600 ? 900 : 900 + 2 * Math.floor((t - 600) / 4)), "x", "default");
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.GROWING);
        // the trend over the judged 15 min, half of it flat: lower than the leak's own 30 MiB/min
        assertThat(c.growthMiBPerMin()).isBetween(10.0, 30.0);
    }

    @Test
    void slowGrowthIsMeasuredWithItsTimeToFull() {
        // 2 MiB every 2 min for 2 h: 1 MiB/min, the H200 full in ~98 days
        MemoryCurve c = analyzer.analyze(job(7200, t -> 900 + 2 * Math.floor(t / 120)), "x", "default");
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.growthMiBPerMin()).isCloseTo(1.0, within(0.1));
        assertThat(c.hoursToFull() / 24).isBetween(90.0, 105.0);
        assertThat(c.fillsWithin(168)).isFalse();
        assertThat(c.describe()).contains("beyond the fill horizon of 7 days");
    }

    @Test
    void aWeekOfSamplesIsBoundedAndStillJudged() {
        // a week at 250 ms: 2.4 million samples, a leak of 0.5 MiB/min with nvidia-smi jitter
        MemorySamples s = job(7 * 24 * 3600.0, t -> 900 + 0.5 * t / 60 + ((long) (t * 4) % 7 == 0 ? 3 : 0));
        assertThat(s.rawSamples()).isGreaterThan(2_400_000);
        assertThat(s.size()).isLessThanOrEqualTo(MemorySamples.MAX_KEPT);
        // the work bounded, by this thread's CPU time: a loaded machine's wall clock says nothing of it
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        long t0 = cpu.getCurrentThreadCpuTime();
        MemoryCurve c = analyzer.analyze(s, "x", "default");
        assertThat((cpu.getCurrentThreadCpuTime() - t0) / 1e9).isLessThan(2.0);
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.growthMiBPerMin()).isCloseTo(0.5, within(0.02));
        assertThat(c.points()).hasSizeLessThanOrEqualTo(400);
    }

    @Test
    void noMemoryTotalGrowsWithoutATimeToFull() {
        MemorySamples s = new MemorySamples("0");
        for (int i = 0; i < 200; i++) {
            s.add(i * 0.25, i < 8 ? 0 : 600 + 8 * i, -1);
        }
        MemoryCurve c = analyzer.analyze(s, "x", "default");
        assertThat(c.shape()).isEqualTo(MemoryCurve.Shape.GROWING);
        assertThat(c.totalMiB()).isNull();
        assertThat(c.hoursToFull()).isNull();
        assertThat(c.fillsWithin(1)).isTrue();
        assertThat(c.describe()).contains("memory.total was not sampled");
    }

    @Test
    void tooFewSamplesIsUnknownNotStable() {
        MemorySamples s = new MemorySamples("0");
        s.add(0, 0, 100);
        s.add(0.25, 600, 100);
        assertThat(analyzer.analyze(s, "x", "default").shape()).isEqualTo(MemoryCurve.Shape.UNKNOWN);
        MemorySamples idle = new MemorySamples("0");
        for (int i = 0; i < 20; i++) {
            idle.add(i * 0.25, 0, 100);
        }
        assertThat(analyzer.analyze(idle, "x", "default").describe()).contains("never rose above the idle");
    }

    @Test
    void policyIsChecked() {
        assertThatThrownBy(() -> new MemoryCurve.Policy(-1, 168)).hasMessageContaining("0 or more seconds");
        assertThatThrownBy(() -> new MemoryCurve.Policy(10, 0)).hasMessageContaining("more than 0 hours");
        assertThat(MemoryCurve.duration(0.005)).isEqualTo("18 s");
        assertThat(MemoryCurve.duration(0.5)).isEqualTo("30 min");
        assertThat(MemoryCurve.duration(25.2)).isEqualTo("25 h");
        assertThat(MemoryCurve.duration(168)).isEqualTo("7 days");
        assertThat(MemoryCurve.duration(2400)).isEqualTo("100 days");
        assertThat(MemoryCurve.rate(0)).isEqualTo("0");
        assertThat(MemoryCurve.rate(0.5)).isEqualTo("0.50");
        assertThat(MemoryCurve.rate(1.55)).isEqualTo("1.6");
        assertThat(MemoryCurve.rate(95.7)).isEqualTo("96");
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
