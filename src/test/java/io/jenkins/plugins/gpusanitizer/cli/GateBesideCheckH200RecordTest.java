package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The gate's wall time on one GPU with the sanitizer and blocking runs started beside the environment check
 * (records/h200-gpu-minutes-env.zip.xz, examples/h200/capture-gpu-minutes.sh on the H200 with the jar of commit 1b5febf):
 * issue #15's goal, at most 1.1x the sanitizer phase plus the regression phase, read from the record, and the
 * findings of every example job, analysed again here.
 */
class GateBesideCheckH200RecordTest {
    static final Path RECORD = Records.unpacked("h200-gpu-minutes-env");

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({
        "ddp-clean,PASS,",
        "ddp-scatter,FAIL,memcheck device-assert __assertfail 82",
        "triton-stride,FAIL,memcheck out-of-bounds row_scale_bias_kernel 51"
    })
    void theGateCostsAtMostATenthMoreThanSanitizerPlusRegression(String job, String verdict, String defect)
            throws Exception {
        JsonNode beside = GateRecords.analyze(RECORD, job + "-beside", dir);
        assertThat(beside.get("verdict").asText()).isEqualTo(verdict);
        assertThat(GateRecords.findings(beside))
                .containsExactlyElementsOf(defect == null ? List.of() : List.of(defect));
        assertThat(beside.path("execution")
                        .path("environment")
                        .path("compatibility")
                        .asText())
                .isEqualTo("ok");

        List<String> console = Files.readAllLines(RECORD.resolve(job + "-beside.console.txt"));
        int answer = GateRecords.lineOf(console, "environment: ");
        assertThat(GateRecords.lineOf(console, "sanitizer-memcheck started"))
                .as("the sanitizer run started before the environment check answered")
                .isLessThan(answer);
        assertThat(GateRecords.lineOf(console, "blocking started"))
                .as("the blocking run too")
                .isLessThan(answer);
        assertThat(console).noneMatch(l -> l.contains("run again with the answer's settings"));

        double sanitizerPlusRegression = 0;
        for (JsonNode phase : beside.path("execution").path("phases")) {
            String name = phase.path("name").asText();
            if (name.startsWith("sanitizer") || name.equals("regression")) {
                sanitizerPlusRegression += phase.path("wallSeconds").asDouble();
            }
        }
        double gate = GateRecords.gateSeconds(RECORD).get(job + "-beside");
        assertThat(gate / sanitizerPlusRegression)
                .as("gate %.2f s over sanitizer + regression %.2f s", gate, sanitizerPlusRegression)
                .isLessThanOrEqualTo(1.1);
    }

    @ParameterizedTest
    @CsvSource({"ddp-clean", "triton-stride"})
    void oneAfterTheOtherFindsTheSameButCostsMore(String job) throws Exception {
        JsonNode beside = GateRecords.analyze(RECORD, job + "-beside", dir);
        JsonNode after = GateRecords.analyze(RECORD, job + "-after", dir);
        assertThat(after.get("verdict").asText())
                .isEqualTo(beside.get("verdict").asText());
        assertThat(GateRecords.findings(after)).isEqualTo(GateRecords.findings(beside));
        assertThat(after.path("diagnosis").path("faultAt").path("line").asInt())
                .isEqualTo(beside.path("diagnosis").path("faultAt").path("line").asInt());
        List<String> console = Files.readAllLines(RECORD.resolve(job + "-after.console.txt"));
        assertThat(GateRecords.lineOf(console, "environment: "))
                .as("--no-overlap: the check answers before any phase")
                .isLessThan(GateRecords.lineOf(console, "sanitizer-memcheck started"));
        Map<String, Double> seconds = GateRecords.gateSeconds(RECORD);
        assertThat(seconds.get(job + "-beside")).isLessThan(seconds.get(job + "-after"));
    }
}
