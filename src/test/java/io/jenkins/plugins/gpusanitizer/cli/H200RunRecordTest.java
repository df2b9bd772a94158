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
 * {@code analyze --run-dir} over the run directories that {@code gpu-sanitize run} wrote on the real
 * H200 (records/h200-2026-12-02.zip.xz, made by examples/h200/run-examples.sh): the verdicts and lines the
 * runner reported there must come out again from the raw outputs.
 */
class H200RunRecordTest {
    static final Path RECORD = Records.unpacked("h200-2026-12-02");

    @TempDir
    Path dir;

    private JsonNode analyze(String runCase, int exit) {
        Path json = dir.resolve(runCase + ".json");
        CliRunner r =
                CliRunner.run("analyze", "--run-dir", RECORD.resolve(runCase).toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(exit);
        return CliRunner.json(json);
    }

    private static List<JsonNode> open(JsonNode r) {
        return StreamSupport.stream(r.get("defects").spliterator(), false)
                .filter(d -> !d.get("suppressed").asBoolean())
                .toList();
    }

    @Test
    void farWriteFromACupyKernel() {
        JsonNode r = analyze("far", 1);
        assertThat(r.get("errorsTotal").asLong()).isEqualTo(2050);
        assertThat(open(r)).singleElement().satisfies(d -> {
            assertThat(d.get("kernel").asText()).isEqualTo("fused_scale");
            assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(43);
            assertThat(d.get("records").asInt()).isEqualTo(200);
        });
        assertThat(r.get("diagnosis").get("reportedAt").get("line").asInt()).isEqualTo(88);
        assertThat(r.get("diagnosis").get("faultAt").get("line").asInt()).isEqualTo(43);
        assertThat(r.get("execution").get("referenceFailureSeconds").asDouble()).isEqualTo(8.47);
        assertThat(r.get("execution").get("regressionTargetSeconds").asDouble()).isEqualTo(16.94);
    }

    @Test
    void nearWriteIsFoundOnlyWithoutTheCachingAllocator() {
        JsonNode near = analyze("near", 1);
        assertThat(open(near))
                .singleElement()
                .satisfies(d -> assertThat(d.get("records").asInt()).isEqualTo(16));
        assertThat(near.get("diagnosis").get("reportedAt").isNull())
                .as("the normal run did not fail")
                .isTrue();
        JsonNode cached = analyze("near-cached", 0);
        assertThat(cached.get("errorsTotal").asLong()).isZero();
        assertThat(cached.get("reasons").toString()).contains("caching-allocator");
    }

    @Test
    void gatherOutOfRangeIsADeviceAssertAtTheRealLine() {
        JsonNode r = analyze("index", 1);
        assertThat(open(r)).singleElement().satisfies(d -> {
            assertThat(d.get("kind").asText()).isEqualTo("device-assert");
            assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(64);
            assertThat(d.get("launcher").asText()).startsWith("at::native::_cuda_scatter_gather_internal_kernel");
            // memcheck stops in the assert runtime; the operator comes from the dispatcher frames at launch
            assertThat(d.get("kernel").asText()).isEqualTo("__assertfail");
            assertThat(d.get("message").asText())
                    .isEqualTo(
                            "Device assert in aten::gather (kernel launched by _cuda_scatter_gather_internal_kernel)");
        });
        assertThat(r.get("reasons").toString())
                .contains(
                        "memcheck: Device assert in aten::gather (kernel launched by _cuda_scatter_gather_internal_kernel): "
                                + "scatter gather kernel index out of bounds (ScatterGatherKernel.cu:163), launched from lstm_job.py:64")
                .doesNotContain("in kernel __assertfail");
        assertThat(r.get("diagnosis").get("reportedAt").get("line").asInt()).isEqualTo(82);
        assertThat(r.get("diagnosis").get("faultAt").get("line").asInt()).isEqualTo(64);
        assertThat(r.get("failures").toString()).contains("scatter gather kernel index out of bounds");
    }

    @Test
    void tritonMaskTooWideHasTheDeviceLine() {
        JsonNode r = analyze("triton", 1);
        assertThat(open(r)).singleElement().satisfies(d -> {
            assertThat(d.get("kernel").asText()).isEqualTo("scale_kernel");
            assertThat(d.get("deviceLocation").get("line").asInt()).isEqualTo(20);
            assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(26);
        });
    }

    @Test
    void cleanJobPassesAndLeakIsUnstable() {
        assertThat(analyze("clean", 0).get("defects")).isEmpty();
        JsonNode leak = analyze("leak", 2);
        assertThat(leak.get("memory").get(0).get("shape").asText()).isEqualTo("growing");
        assertThat(leak.get("memory").get(0).get("growthMiBPerMin").asDouble()).isBetween(60_000.0, 80_000.0);
    }

    @Test
    void cudnnInitcheckNoiseIsSuppressedWithItsRuleButNotCalledClean() {
        JsonNode r = analyze("initcheck", 0);
        assertThat(r.get("errorsTotal").asLong()).isEqualTo(131072);
        assertThat(r.get("defects")).singleElement().satisfies(d -> {
            assertThat(d.get("kernel").asText()).isEqualTo("RNN_blockPersist_fp_LSTM");
            assertThat(d.get("vendorModule").asText()).isEqualTo("libcudnn_adv.so.9");
            assertThat(d.get("suppressedBy").get("rule").asText()).isEqualTo("vendor-library-noise");
            assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(65);
        });
        assertThat(r.get("reasons").toString()).contains("unprinted-unchecked");
    }
}
