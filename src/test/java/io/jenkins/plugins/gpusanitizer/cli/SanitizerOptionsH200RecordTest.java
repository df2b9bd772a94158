package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What compute-sanitizer's own options do to the findings (records/h200-sanitizer-options.zip.xz, made on the H200 by
 * examples/h200/capture-sanitizer-options.sh): vendor kernels excluded keep the Triton defect and its line, a
 * shorter host backtrace keeps it only through the XML, a device-only backtrace loses it; for initcheck, excluding vendor kernels
 * shows a finding the print limit hid behind vendor records.
 */
class SanitizerOptionsH200RecordTest {
    static final Path RECORD = Records.unpacked("h200-sanitizer-options");

    @TempDir
    Path dir;

    /** The report the CLI wrote on the H200 for one run. */
    private static JsonNode report(String run) {
        return CliRunner.json(RECORD.resolve(run).resolve("report.json"));
    }

    private static List<String> open(JsonNode report) {
        List<String> found = new ArrayList<>();
        for (JsonNode d : report.get("defects")) {
            if (!d.path("suppressed").asBoolean()) {
                found.add(d.path("kind").asText() + " " + d.path("kernel").asText() + " "
                        + d.path("hostLocation").path("line").asText("-"));
            }
        }
        return found;
    }

    /** A run directory (its sanitizer log and XML), analysed again here. */
    private JsonNode analyzeRun(String run) {
        Path json = dir.resolve(run + ".json");
        CliRunner r = CliRunner.run("analyze", "--run-dir", RECORD.resolve(run).toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        return CliRunner.json(json);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "triton-stride-default-1",
                "triton-stride-callers8-1",
                "triton-stride-callers8-2",
                "triton-stride-no-vendor-1",
                "triton-stride-no-vendor-2"
            })
    void aShortHostBacktraceOrNoVendorKernelsKeepTheDefectAndItsLine(String run) {
        JsonNode report = report(run);
        assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(report.get("errorsTotal").asLong()).isEqualTo(1026);
        assertThat(open(report)).containsExactly("out-of-bounds row_scale_bias_kernel 51");
        assertThat(report.path("diagnosis").path("faultAt").path("line").asInt())
                .isEqualTo(51);
    }

    @Test
    void aDeviceOnlyBacktraceLosesTheUsersLine() {
        for (String run : List.of("triton-stride-device-only-1", "triton-stride-device-only-2")) {
            JsonNode report = report(run);
            assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
            assertThat(open(report)).containsExactly("out-of-bounds row_scale_bias_kernel -");
            assertThat(report.path("diagnosis").path("faultAt").isMissingNode()
                            || report.path("diagnosis").path("faultAt").isNull())
                    .as(run + ": no line to name")
                    .isTrue();
        }
        // from the raw outputs: the same records, with and without the host frames that carry the Python line
        assertThat(open(analyzeRun("triton-stride-device-only-1")))
                .containsExactly("out-of-bounds row_scale_bias_kernel -");
        assertThat(open(analyzeRun("triton-stride-default-1")))
                .containsExactly("out-of-bounds row_scale_bias_kernel 51");
    }

    @Test
    void aShortHostBacktraceKeepsTheLineOnlyThroughTheXml() throws Exception {
        Path text = RECORD.resolve("triton-stride-callers8-1/sanitizer-memcheck/sanitizer.log");
        assertThat(Files.readString(text))
                .as("the text log's host backtraces were cut before the Python frames")
                .doesNotContain("Host Frame: forward in triton_stride.py");
        Path json = dir.resolve("text-only.json");
        CliRunner.run("analyze", "--sanitizer-log", text.toString(), "--json", json.toString());
        assertThat(open(CliRunner.json(json)))
                .singleElement()
                .asString()
                .startsWith("out-of-bounds row_scale_bias_kernel")
                .doesNotEndWith(" 51");
        assertThat(open(analyzeRun("triton-stride-callers8-1")))
                .as("with the XML, which keeps every frame")
                .containsExactly("out-of-bounds row_scale_bias_kernel 51");
    }

    @Test
    void memcheckOnVendorKernelsFindsNothingEitherWay() {
        for (String run : List.of("vendor-mix-memcheck-default-1", "vendor-mix-memcheck-no-vendor-1")) {
            JsonNode report = report(run);
            assertThat(report.get("verdict").asText()).as(run).isEqualTo("PASS");
            assertThat(report.get("errorsTotal").asLong()).as(run).isZero();
        }
    }

    @Test
    void initcheckWithoutVendorKernelsShowsWhatThePrintLimitHid() {
        for (Path record : List.of(RECORD, RECORD.resolve("initcheck-2-steps"))) {
            JsonNode all = CliRunner.json(record.resolve("vendor-mix-initcheck-default-1/report.json"));
            JsonNode noVendor = CliRunner.json(record.resolve("vendor-mix-initcheck-no-vendor-1/report.json"));
            assertThat(open(all))
                    .as("every printed record is in a vendor kernel, suppressed")
                    .isEmpty();
            assertThat(all.get("defects").findValuesAsText("kernel")).contains("RNN_blockPersist_fp_LSTM");
            assertThat(open(noVendor)).containsExactly("uninitialized-read elementwise_kernel 33");
            for (JsonNode report : List.of(all, noVendor)) {
                assertThat(report.get("verdict").asText())
                        .as("initcheck ran into its time limit on this job: ERROR, never a pass")
                        .isEqualTo("ERROR");
                assertThat(report.get("reasons").findValuesAsText("code")).contains("timeout");
            }
            assertThat(noVendor.get("errorsTotal").asLong())
                    .as("vendor kernels' errors are not counted")
                    .isLessThan(all.get("errorsTotal").asLong());
        }
    }
}
