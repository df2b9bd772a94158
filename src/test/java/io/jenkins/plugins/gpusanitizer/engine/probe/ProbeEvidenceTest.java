package io.jenkins.plugins.gpusanitizer.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** probe.jsonl as the probe writes it (fixtures shaped like the H200 jobs of examples/probe) to evidence. */
class ProbeEvidenceTest {
    /** A growing curve whose window cannot be placed on the probe's clock: sites against warm-up. */
    static final MemoryVerdict GROWING_UNTIMED = new MemoryVerdict("growing", "growing", Double.NaN, Double.NaN);

    static final double START_WALL = 1796341753.0;

    @TempDir
    Path dir;

    /**
     * A clean job that fills a 960 MiB GPU dataset cache in its first 15 s (64 MiB a second, at
     * cache.py:12) and then trains for 30 s at a flat level: one snapshot a second.
     */
    private ProbeLog datasetCacheJob() throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"type\":\"probe\",\"mode\":\"regression\",\"ts\":" + START_WALL + ",\"utcOffset\":0,"
                + "\"t\":1.0,\"pid\":7}\n");
        sb.append("{\"type\":\"site\",\"id\":1,\"file\":\"/job/cache.py\",\"line\":12,\"function\":\"load\","
                + "\"stack\":[],\"t\":2.0,\"pid\":7}\n");
        sb.append("{\"type\":\"site\",\"id\":2,\"file\":\"<no Python frame recorded>\",\"line\":0,"
                + "\"function\":\"?\",\"stack\":[],\"t\":2.0,\"pid\":7}\n");
        for (int t = 2; t <= 45; t++) {
            long cache = Math.min(t - 1, 15) * (64L << 20);
            long workspace = 32L << 20;
            sb.append("{\"type\":\"sites\",\"at\":\"" + (t == 45 ? "exit" : "periodic") + "\",\"t\":" + t
                    + ".0,\"allocated\":" + (cache + workspace) + ",\"reserved\":" + (cache + workspace)
                    + ",\"blocks\":" + (t + 1) + ",\"sites\":[[1," + cache + "," + Math.min(t - 1, 15) + "],[2,"
                    + workspace + ",1]],\"cost\":0.001,\"pid\":7}\n");
        }
        Path f = dir.resolve("cache-regression.jsonl");
        Files.writeString(f, sb.toString(), StandardCharsets.UTF_8);
        return new ProbeParser().parse("regression", f);
    }

    /** Issue #25, 1: a cache filled in the first seconds, then flat, was told it "piles up". */
    @Test
    void aCacheFilledDuringWarmUpIsNotBlamedWhenTheCurveIsFlat() throws IOException {
        ProbeLog log = datasetCacheJob();
        // the old rule: the end against the first sample after a quarter of the run (12 s), cache still filling
        ProbeFindings.AllocationGrowth untimed =
                ProbeEvidence.of(List.of(log), GROWING_UNTIMED).allocations();
        assertThat(untimed.growing())
                .as("start against exit grows, the old comparison")
                .isTrue();

        // the curve: stable, judged from 16 s to 45 s of the process (the sampler started with it)
        MemoryVerdict stable = new MemoryVerdict("stable", "stable", START_WALL + 16, START_WALL + 45);
        ProbeFindings.AllocationGrowth a =
                ProbeEvidence.of(List.of(log), stable).allocations();
        assertThat(a.growing()).isFalse();
        assertThat(a.summary())
                .isEqualTo("PyTorch's allocator held 992.0 MiB live at the end (45.0 s); the memory curve shows no"
                        + " growth (stable): no allocation site is blamed.");
        assertThat(a.warmupSeconds()).isEqualTo(16.0);
        assertThat(a.sites().get(0).growthBytes())
                .as("flat inside the judged window")
                .isZero();

        // no curve at all: nothing to agree with, nothing blamed
        assertThat(ProbeEvidence.of(List.of(log)).allocations().growing()).isFalse();
    }

    /** A curve that grows while the allocator's live blocks stay flat: the growth is not theirs. */
    @Test
    void aGrowingCurveWithAFlatAllocatorBlamesNoSite() throws IOException {
        MemoryVerdict growing = new MemoryVerdict("growing", "growing", START_WALL + 16, START_WALL + 45);
        ProbeFindings.AllocationGrowth a =
                ProbeEvidence.of(List.of(datasetCacheJob()), growing).allocations();
        assertThat(a.growing()).isFalse();
        assertThat(a.summary())
                .isEqualTo("PyTorch's allocator held 992.0 MiB live at the end (45.0 s); the memory curve grows, but"
                        + " the allocator's live blocks did not (992.0 MiB at 16.0 s): what grows is outside PyTorch's"
                        + " live tensors (its cached segments, another library or another process): no allocation"
                        + " site is blamed.");
    }

    /** A window on a clock in another zone (hours away from every sample) is not placed: the warm-up rule. */
    @Test
    void aWindowOnAnotherClockIsNotPlaced() throws IOException {
        MemoryVerdict elsewhere = new MemoryVerdict("stable", "stable", START_WALL + 3600 + 16, START_WALL + 3600 + 45);
        ProbeFindings.AllocationGrowth a =
                ProbeEvidence.of(List.of(datasetCacheJob()), elsewhere).allocations();
        assertThat(a.warmupSeconds()).isEqualTo(12.0); // a quarter of the 45 s, not 16 s
        assertThat(a.growing())
                .as("the curve does not grow, whatever the allocator did")
                .isFalse();
    }

    @Test
    void aSiteWithoutAPythonFrameIsSaidAsSuchNeverAsAFile() {
        SourceLocation none = new SourceLocation(ProbeEvidence.NO_PYTHON_FRAME, 0, "?", null);
        assertThat(ProbeEvidence.where(none))
                .isEqualTo("an allocation with no Python frame recorded (a C++/library allocation)");
        assertThat(ProbeEvidence.allocatedAt(none))
                .isEqualTo("allocated with no Python frame recorded (a C++/library allocation)");
        assertThat(ProbeEvidence.allocatedAt(new SourceLocation("/job/cache.py", 12, "load", null)))
                .isEqualTo("allocated at cache.py:12 (load)");
    }

    static Path fixture(String name) {
        try {
            return Path.of(ProbeEvidenceTest.class
                    .getResource("/probe/fixtures/" + name)
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static ProbeFindings of(String phase, String name) {
        return ProbeEvidence.of(List.of(new ProbeParser().parse(phase, fixture(name))));
    }

    @Test
    void embeddingIndexPastTheVocabulary() {
        ProbeFindings p = of("blocking", "embedding-blocking.jsonl");
        assertThat(p.operators()).singleElement().satisfies(o -> {
            assertThat(o.summary())
                    .isEqualTo("aten::embedding at embedding_oov.py:24: index max 5000, weight has 5000 rows");
            assertThat(o.phase()).isEqualTo("blocking");
            ProbeLog.OpFailure f = o.failure();
            assertThat(f.site().function()).isEqualTo("forward");
            assertThat(f.site().code()).isEqualTo("h = self.emb(tokens)  # PROBE-FAULT: the failing operator");
            assertThat(f.stack()).extracting(l -> l.line()).containsExactly(42, 51);
            assertThat(f.args())
                    .extracting(a -> a.name() + a.shape() + a.dtype() + "@" + a.device() + (a.index() ? " index" : ""))
                    .containsExactly("input[32, 64]int64@cuda:0 index", "weight[5000, 128]float32@cuda:0");
            assertThat(f.check().statsFrom()).isEqualTo("before the call");
            assertThat(f.check().outOfRange()).isTrue();
            assertThat(f.exceptionType()).isEqualTo("RuntimeError");
        });
        assertThat(p.primaryOperator().summary()).startsWith("aten::embedding");
        assertThat(p.phases()).singleElement().satisfies(s -> {
            assertThat(s.status()).isEqualTo("recorded");
            assertThat(s.processes()).isEqualTo(1);
            assertThat(s.watchedCalls()).isEqualTo(61);
            assertThat(s.probeSeconds()).isEqualTo(0.0213);
            assertThat(s.errors()).isEmpty();
        });
        assertThat(p.allocations()).isNull();
        assertThat(p.notes()).isEmpty();
    }

    @Test
    void scatterInATorchrunRankNamesTheRank() {
        ProbeFindings p = of("blocking", "scatter-torchrun-blocking.jsonl");
        assertThat(p.operators())
                .extracting(ProbeFindings.OperatorEvidence::summary)
                .containsExactly(
                        "aten::scatter_ at scatter_ddp.py:20: index max 64, input has 64 entries along dim 1 (rank 1)");
        assertThat(p.phases().get(0).processes()).isEqualTo(3); // the agent and two ranks
        assertThat(p.phases().get(0).watchedCalls()).isEqualTo(12);
    }

    @Test
    void aListKeepingEachStepsOutputsIsNamedByItsAllocationSite() {
        ProbeLog log = new ProbeParser().parse("regression", fixture("leak-regression.jsonl"));
        assertThat(log.cutLastLine()).isTrue(); // the run was stopped at its target while a line was written
        assertThat(log.badLines()).isZero();
        ProbeFindings p = ProbeEvidence.of(List.of(log), GROWING_UNTIMED);
        ProbeFindings.AllocationGrowth a = p.allocations();
        assertThat(a.growing()).isTrue();
        assertThat(a.summary())
                .isEqualTo("GPU memory grows because tensors allocated at logits_leak.py:23 (forward) pile up: "
                        + "1,180 live blocks, 23.0 MiB at the end against 3.5 MiB after warm-up (4.3 s).");
        assertThat(a.endAt()).isEqualTo("periodic");
        assertThat(a.warmupSeconds()).isEqualTo(4.3);
        assertThat(a.samples()).isEqualTo(12);
        // the top sites by live bytes at the end: the model's parameters hold more, the logits grew
        assertThat(a.sites()).extracting(s -> s.site().line()).containsExactly(32, 23, 41);
        assertThat(a.sites().get(0).growthBytes()).isZero();
        assertThat(a.sites().get(1)).satisfies(s -> {
            assertThat(s.site().function()).isEqualTo("forward");
            assertThat(s.stack()).extracting(l -> l.line()).containsExactly(38, 50);
            assertThat(s.blocksAtWarmup()).isEqualTo(179);
            assertThat(s.blocksAtEnd()).isEqualTo(1180);
            assertThat(s.growthBytes()).isEqualTo((1180 - 179) * 20480L);
        });
        assertThat(a.series())
                .extracting(ProbeFindings.SiteSeries::label)
                .containsExactly("logits_leak.py:32 (main)", "logits_leak.py:23 (forward)", "logits_leak.py:41 (main)");
        assertThat(a.series().get(1).points()).hasSize(12);
        assertThat(a.series().get(1).points().get(11)).containsExactly(14.3, 23.05);
        assertThat(p.notes()).isEmpty();
        assertThat(p.phases().get(0).probeSeconds()).isEqualTo(0.0372); // 12 snapshots at 3.1 ms
        assertThat(p.phases().get(0).samples()).isEqualTo(12);
    }

    @Test
    void outOfMemoryNamesWhereItFailedAndWhatFilledTheCard() {
        ProbeFindings p = of("regression", "oom-regression.jsonl");
        ProbeFindings.AllocationGrowth a = p.allocations();
        assertThat(a.endAt()).isEqualTo("oom");
        assertThat(a.oom().summary())
                .isEqualTo("Out of memory at cache_oom.py:21 (workspace) allocating 6.0 GiB with 3.5 GiB free; "
                        + "what filled the card: cache_oom.py:17 (remember), 130 live blocks, 130.0 GiB; "
                        + "allocator snapshot: regression/probe-oom-snapshot-7100.pickle.");
        assertThat(a.oom().site().line()).isEqualTo(21);
        assertThat(a.oom().snapshotBytes()).isEqualTo(1843200);
        assertThat(a.summary())
                .startsWith(
                        "GPU memory grows because tensors allocated at cache_oom.py:17 (remember) pile up: 130 live blocks, "
                                + "130.0 GiB at the out-of-memory");
    }

    @Test
    void aBrokenProbeIsANoteAndStillCounted() {
        ProbeFindings p = of("regression", "broken-regression.jsonl");
        assertThat(p.allocations()).isNull();
        assertThat(p.phases().get(0).errors())
                .containsExactly(
                        "sample: AttributeError: module 'torch.cuda.memory' has no attribute '_snapshot'",
                        "1 line(s) not readable");
        assertThat(p.notes())
                .singleElement()
                .asString()
                .startsWith("The probe reported problems in the regression phase (sample: AttributeError")
                .endsWith("the job itself ran as it would have.");
    }

    @Test
    void aPhaseWhoseJobNeverImportedTorchSaysSo() {
        ProbeFindings p = ProbeEvidence.of(List.of(new ProbeParser().parse("blocking", dir.resolve("probe.jsonl"))));
        assertThat(p.phases()).singleElement().satisfies(s -> {
            assertThat(s.status()).isEqualTo("no-output");
            assertThat(s.records()).isZero();
        });
        assertThat(p.isEmpty()).isFalse();
        assertThat(ProbeEvidence.of(List.of()).isEmpty()).isTrue();
    }

    @Test
    void anythingElseInTheFileIsSkippedWithinBounds() throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"type\":\"probe\",\"mode\":\"blocking\",\"pid\":1}\n");
        sb.append("x".repeat(ProbeParser.MAX_LINE + 10)).append('\n'); // a huge line: cut, not JSON
        sb.append("[1,2,3]\n"); // JSON but not an object
        sb.append(
                "{\"type\":\"op-failure\",\"op\":\"aten::gather\",\"check\":{\"min\":\"x\",\"max\":null},\"args\":7,\"pid\":1}\n");
        sb.append("{\"type\":\"sites\",\"sites\":[[1],[\"a\",2,3]],\"pid\":1}\n");
        sb.append("{\"type\":\"a future record\",\"pid\":1}\n");
        sb.append("{\"type\":\"oom-snapshot\",\"file\":\"../../etc/passwd\",\"pid\":1}\n");
        sb.append("\u0000\u00ff binary\n");
        Path f = dir.resolve("probe.jsonl");
        Files.writeString(f, sb, StandardCharsets.UTF_8);
        ProbeLog log = new ProbeParser().parse("blocking", f);
        assertThat(log.records()).isEqualTo(5);
        assertThat(log.badLines()).isEqualTo(3);
        assertThat(log.failures()).singleElement().satisfies(x -> {
            assertThat(x.check().min()).isNull();
            assertThat(x.args()).isEmpty();
            assertThat(ProbeEvidence.operatorSummary(x)).isEqualTo("aten::gather: index values not readable");
        });
        assertThat(log.snapshots())
                .singleElement()
                .satisfies(s -> assertThat(s.file()).isEqualTo("passwd"));
        assertThat(ProbeEvidence.of(List.of(log)).notes())
                .singleElement()
                .asString()
                .contains("3 line(s) not readable");
    }

    @Test
    void summariesForIndicesBelowZeroAndInRange() {
        ProbeLog.OpFailure negative = failure(new ProbeLog.IndexCheck(
                "index",
                "int64",
                List.of(4L),
                -3L,
                7L,
                8L,
                "input",
                "entries along dim 0",
                null,
                true,
                "before the call"));
        assertThat(ProbeEvidence.operatorSummary(negative))
                .isEqualTo("aten::gather at t.py:5: index min -3, input has 8 entries along dim 0");
        ProbeLog.OpFailure ignored = failure(new ProbeLog.IndexCheck(
                "target", "int64", List.of(4L), -100L, 9L, 10L, "input", "classes", -100L, false, "before the call"));
        assertThat(ProbeEvidence.operatorSummary(ignored))
                .isEqualTo("aten::gather at t.py:5: target within -100..9, input has 10 classes "
                        + "(in range: it failed with RuntimeError: shape mismatch)");
    }

    @Test
    void floatTargetsAreNotCalledUnreadable() {
        ProbeLog.OpFailure probabilities = failure(new ProbeLog.IndexCheck(
                "target", "float32", List.of(4L, 10L), null, null, 10L, "input", "classes", -100L, null, null));
        assertThat(ProbeEvidence.operatorSummary(probabilities))
                .isEqualTo("aten::gather at t.py:5: target float32[4, 10], input has 10 classes");
    }

    private static ProbeLog.OpFailure failure(ProbeLog.IndexCheck c) {
        return new ProbeLog.OpFailure(
                1,
                null,
                1,
                "aten::gather",
                new io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation("/w/t.py", 5, "f", null),
                List.of(),
                "RuntimeError",
                "shape mismatch",
                List.of(),
                c,
                null);
    }
}
