package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code analyze --run-dir} over the run directories recorded on the H200 on 2026-12-03
 * (records/h200-2026-12-03.zip.xz, made by examples/h200/capture-2026-12-03.sh with the CLI of that morning):
 * ordinary training jobs, clean and buggy, that the gate got wrong then.
 */
class H200Record1203Test {
    static final Path RECORD = Records.unpacked("h200-2026-12-03");

    @TempDir
    Path dir;

    private JsonNode analyze(String runCase) {
        Path json = dir.resolve(runCase + ".json");
        CliRunner r =
                CliRunner.run("analyze", "--run-dir", RECORD.resolve(runCase).toString(), "--json", json.toString());
        assertThat(r.err()).doesNotContain("Exception");
        return CliRunner.json(json);
    }

    private static List<JsonNode> defects(JsonNode r, boolean suppressed) {
        return StreamSupport.stream(r.get("defects").spliterator(), false)
                .filter(d -> d.get("suppressed").asBoolean() == suppressed)
                .toList();
    }

    private static List<String> codes(JsonNode r) {
        return StreamSupport.stream(r.get("reasons").spliterator(), false)
                .filter(x -> !x.get("level").asText().equals("info"))
                .map(x -> x.get("level").asText() + ":" + x.get("code").asText())
                .toList();
    }

    @Test
    void ncclProbingItsKernelsUnderTorchrunIsNotADefect() {
        JsonNode r = analyze("ddp-clean");
        assertThat(defects(r, false)).isEmpty();
        assertThat(defects(r, true)).hasSize(2).allSatisfy(d -> {
            assertThat(d.get("suppressedBy").get("rule").asText()).isEqualTo("vendor-handled-api-error");
            assertThat(d.get("vendorModule").asText()).isEqualTo("libnccl.so.2");
            assertThat(d.get("message").asText()).startsWith("cudaErrorNoKernelImageForDevice on CUDA API call to ");
            assertThat(d.get("records").asInt()).isEqualTo(4);
        });
        assertThat(codes(r)).noneMatch(c -> c.startsWith("fail:") || c.startsWith("error:"));
        JsonNode san = StreamSupport.stream(r.get("execution").get("phases").spliterator(), false)
                .filter(p -> p.get("name").asText().equals("sanitizer-memcheck"))
                .findFirst()
                .orElseThrow();
        assertThat(san.get("exitCode").asInt()).isEqualTo(86);
        assertThat(san.get("status").asText()).isEqualTo("passed");
        assertThat(san.get("note").asText()).contains("came only from records suppressed as known noise");
    }

    @Test
    void aCaptureBrokenByTheUncachedAllocatorIsNeverBlamedOnTheUsersLine() {
        JsonNode r = analyze("cudagraph");
        assertThat(r.get("verdict").asText()).isEqualTo("ERROR");
        assertThat(defects(r, false)).isEmpty();
        assertThat(defects(r, true))
                .hasSize(4)
                .allSatisfy(d -> assertThat(d.get("suppressedBy").get("rule").asText())
                        .isEqualTo("capture-under-uncached-allocator"));
        assertThat(codes(r)).contains("error:capture-conflict").noneMatch(c -> c.startsWith("fail:"));
    }

    @Test
    void racecheckAnalysisRecordsKeepTheirKernelAccessPairAndHazards() {
        JsonNode r = analyze("racecheck");
        assertThat(r.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(defects(r, false)).singleElement().satisfies(d -> {
            assertThat(d.get("kernel").asText()).isEqualTo("row_sumsq");
            assertThat(d.get("message").asText()).isEqualTo("Race reported between Write and Read accesses");
            assertThat(d.get("detail").asText())
                    .isEqualTo("16384 hazards: Write at row_sumsq+0x200 -> Read at row_sumsq+0x270 (16384 hazards)");
            assertThat(d.get("severity").asText()).isEqualTo("error");
        });
        assertThat(r.get("reasons").toString())
                .contains("in kernel row_sumsq")
                .contains("carry no host stack")
                .doesNotContain("kernel null");
    }

    @Test
    void embeddingIndexPastTheVocabularyNamesTheOperatorNotAssertfail() {
        JsonNode r = analyze("embedding-oov");
        assertThat(defects(r, false))
                .singleElement()
                .satisfies(d -> assertThat(d.get("message").asText()).startsWith("Device assert in aten::embedding"));
        assertThat(r.get("reasons").toString())
                .contains("vectorized gather kernel index out of bounds")
                .contains("launched from embedding_job.py:56")
                .doesNotContain("__assertfail");
        assertThat(r.get("diagnosis").get("faultAt").get("line").asInt()).isEqualTo(56);
    }

    @Test
    void labelEqualToTheClassCountNamesCrossEntropy() {
        JsonNode r = analyze("embedding-label");
        assertThat(defects(r, false))
                .singleElement()
                .satisfies(d -> assertThat(d.get("message").asText())
                        .isEqualTo("Device assert in aten::cross_entropy_loss (via aten::nll_loss_forward)"));
        assertThat(r.get("diagnosis").get("faultAt").get("line").asInt()).isEqualTo(86);
    }

    @Test
    void cuBlasCuDnnAndCuFftProbeNothingUnderMemcheck() {
        JsonNode r = analyze("vendor-mix");
        assertThat(r.get("verdict").asText()).isEqualTo("PASS");
        assertThat(r.get("errorsTotal").asLong()).isZero();
    }

    @Test
    void cleanJobsPass() {
        for (String clean : List.of("ddp-clean", "cudnn-bench", "compile-clean", "racecheck-clean", "vendor-mix")) {
            JsonNode r = analyze(clean);
            assertThat(r.get("verdict").asText())
                    .as(clean + ": " + r.get("reasons"))
                    .isEqualTo("PASS");
        }
    }

    @Test
    void keepingEachStepsLogitsIsASlowLeakTheCardWouldFillWithinAWeek() {
        JsonNode r = analyze("leak-logits");
        assertThat(r.get("verdict").asText()).isEqualTo("UNSTABLE");
        JsonNode m = r.get("memory").get(0);
        assertThat(m.get("shape").asText()).isEqualTo("growing");
        assertThat(m.get("trendMiBPerMin").asDouble()).isBetween(80.0, 120.0);
        assertThat(m.get("hoursToFull").asDouble()).isBetween(18.0, 30.0);
    }
}
