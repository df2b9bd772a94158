package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code analyze --run-dir} over the probe's H200 record (records/h200-probe.zip.xz, made by
 * examples/h200/capture-probe.sh from the jobs of examples/probe): the failing operators, their
 * arguments and the allocation sites must come out of the raw outputs, at the lines the example sources
 * mark with {@code PROBE-FAULT}, {@code PROBE-SITE} and {@code PROBE-OOM}. A case not recorded yet is
 * skipped.
 */
class ProbeH200RecordTest {
    static final Path ROOT = Path.of(System.getProperty("gs.projectRoot", "."));
    static final Path RECORD = Records.unpacked("h200-probe");

    @TempDir
    Path dir;

    private JsonNode analyze(String runCase) {
        Path run = RECORD.resolve(runCase);
        Assumptions.assumeTrue(Files.isDirectory(run), "not recorded yet: " + run);
        Path json = dir.resolve(runCase + ".json");
        CliRunner r = CliRunner.run("analyze", "--run-dir", run.toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 2);
        return CliRunner.json(json);
    }

    /** The line of the example source that carries the marker. */
    static int marked(String example, String marker) {
        try {
            List<String> lines =
                    Files.readAllLines(ROOT.resolve("examples/probe").resolve(example));
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains("# " + marker)) {
                    return i + 1;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException(marker + " not in " + example);
    }

    private static JsonNode operator(JsonNode r) {
        JsonNode ev = r.get("diagnosis").get("operatorEvidence");
        assertThat(ev.size()).as("operator evidence").isPositive();
        return ev.get(0);
    }

    private static void probeRecorded(JsonNode r, String phase) {
        for (JsonNode p : r.get("probe").get("phases")) {
            if (p.get("phase").asText().equals(phase)) {
                assertThat(p.get("status").asText()).isEqualTo("recorded");
                assertThat(p.get("errors").size()).as(p.toString()).isZero();
                return;
            }
        }
        throw new AssertionError("no probe status for " + phase);
    }

    private void indexCase(String runCase, String example, String op, long max, long size, String rank) {
        JsonNode r = analyze(runCase);
        JsonNode o = operator(r);
        assertThat(o.get("operator").asText()).isIn(op.split("\\|"));
        assertThat(o.get("site").get("file").asText()).endsWith(example);
        assertThat(o.get("site").get("line").asInt()).isEqualTo(marked(example, "PROBE-FAULT"));
        assertThat(o.get("index").get("max").asLong()).isEqualTo(max);
        assertThat(o.get("index").get("size").asLong()).isEqualTo(size);
        assertThat(o.get("index").get("outOfRange").asBoolean()).isTrue();
        assertThat(o.get("index").get("statsFrom").asText()).isEqualTo("before the call");
        if (rank != null) {
            assertThat(o.get("rank").asText()).isEqualTo(rank);
        }
        assertThat(r.get("diagnosis").get("summary").asText())
                .contains("Failing operator: " + o.get("summary").asText());
        probeRecorded(r, "blocking");
    }

    /** The test fixtures (src/test/resources/probe/fixtures) are shaped like these jobs: same files, same lines. */
    @Test
    void fixturesPointAtTheMarkedLinesOfTheExamples() throws Exception {
        String[][] expected = {
            {"embedding-blocking.jsonl", "embedding_oov.py", "PROBE-FAULT"},
            {"scatter-torchrun-blocking.jsonl", "scatter_ddp.py", "PROBE-FAULT"},
            {"leak-regression.jsonl", "logits_leak.py", "PROBE-SITE"},
            {"oom-regression.jsonl", "cache_oom.py", "PROBE-SITE"},
            {"oom-regression.jsonl", "cache_oom.py", "PROBE-OOM"}
        };
        for (String[] e : expected) {
            String fixture = Files.readString(
                    Path.of(getClass().getResource("/probe/fixtures/" + e[0]).toURI()));
            assertThat(fixture)
                    .as(e[0] + " at " + e[1] + " " + e[2])
                    .contains("/examples/probe/" + e[1] + "\",\"line\":" + marked(e[1], e[2]) + ",");
        }
    }

    @Test
    void embeddingIndexPastTheVocabulary() {
        indexCase("embedding", "embedding_oov.py", "aten::embedding", 5000, 5000, null);
    }

    @Test
    void labelEqualToTheClassCount() {
        indexCase("label", "label_oob.py", "aten::cross_entropy_loss|aten::nll_loss", 10, 10, null);
    }

    @Test
    void scatterWithABadIndexInATorchrunRank() {
        indexCase("scatter-torchrun", "scatter_ddp.py", "aten::scatter_", 64, 64, "1");
    }

    @Test
    void outOfMemoryLineIsWhereAllocationFailedNotWhatFilledTheCard() {
        JsonNode r = analyze("oom");
        JsonNode a = r.get("memory").size() > 0
                ? r.get("memory").get(0).get("allocationSites")
                : r.get("probe").get("allocationSites");
        assertThat(a != null && a.isObject()).as("allocation sites").isTrue();
        JsonNode oom = a.get("oom");
        assertThat(oom.isObject()).as("out-of-memory evidence").isTrue();
        assertThat(oom.get("site").get("line").asInt()).isEqualTo(marked("cache_oom.py", "PROBE-OOM"));
        assertThat(oom.get("sites").get(0).get("site").get("line").asInt())
                .isEqualTo(marked("cache_oom.py", "PROBE-SITE"));
        assertThat(RECORD.resolve("oom").resolve(oom.get("snapshotFile").asText()))
                .isRegularFile();
        assertThat(r.get("failures").toString()).contains("out-of-memory");
    }

    @Test
    void aListThatKeepsEachStepsOutputsIsNamedAsTheSiteThatGrows() {
        JsonNode r = analyze("leak");
        assertThat(r.get("verdict").asText()).isEqualTo("UNSTABLE");
        JsonNode sites = r.get("memory").get(0).get("allocationSites");
        assertThat(sites.get("growing").asBoolean()).isTrue();
        assertThat(sites.get("endAt").asText()).isEqualTo("periodic");
        assertThat(sites.get("samples").asInt()).isGreaterThanOrEqualTo(5);
        JsonNode top = sites.get("sites").get(0);
        int line = marked("logits_leak.py", "PROBE-SITE");
        assertThat(top.get("site").get("line").asInt()).isEqualTo(line);
        assertThat(top.get("blocksAtEnd").asInt()).as("one block per step kept").isGreaterThan(100);
        assertThat(top.get("growthBytes").asLong())
                .as("the top site holds most of what grew")
                .isGreaterThan(sites.get("allocatedBytesAtEnd").asLong() / 2);
        assertThat(sites.get("summary").asText()).contains("logits_leak.py:" + line);
        probeRecorded(r, "regression");
    }

    /**
     * The clean job with both probes against the same job without any, three alternating pairs: the
     * regression-phase probe, which broke optimizer jobs on torch 2.11 until its snapshots stopped importing
     * torch._inductor, now changes nothing but time (that is why it is on by default).
     */
    @Test
    void bothProbesLeaveACleanOptimizerJobPassing() throws Exception {
        for (int i = 1; i <= 3; i++) {
            for (String runCase : List.of("clean-probe-" + i, "clean-noprobe-" + i)) {
                JsonNode r = analyze(runCase);
                assertThat(r.get("verdict").asText()).as(runCase).isEqualTo("PASS");
                assertThat(RECORD.resolve(runCase).resolve("regression/stderr.log"))
                        .content()
                        .doesNotContain("Error")
                        .doesNotContain("Traceback");
                if (runCase.startsWith("clean-probe")) {
                    probeRecorded(r, "blocking");
                    probeRecorded(r, "regression");
                } else {
                    assertThat(r.get("probe").isNull())
                            .as(runCase + " ran with --no-probe")
                            .isTrue();
                }
            }
        }
        assertThat(RECORD.resolve("summary.txt")).content().contains("regression import failures: none");
        JsonNode overhead = CliRunner.json(RECORD.resolve("overhead.json"));
        assertThat(overhead.get("pairs")).hasSize(6).allSatisfy(pair -> {
            assertThat(pair.get("probe").get("exit").asInt()).isZero();
            assertThat(pair.get("noProbe").get("exit").asInt()).isZero();
            assertThat(pair.get("probe").get("probeErrors").asInt()).isZero();
        });
    }
}
