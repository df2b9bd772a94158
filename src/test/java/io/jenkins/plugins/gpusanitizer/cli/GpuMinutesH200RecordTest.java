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
 * What the gate costs on one GPU (records/h200-gpu-minutes.zip.xz, made by examples/h200/capture-gpu-minutes.sh):
 * each example job gated twice on the H200, the blocking run beside the sanitizer run (the default) and
 * after it ({@code --no-overlap}). Both run directories are analysed again here: they must give the same
 * findings, the blocking run must really have run beside the sanitizer run in one and after it in the
 * other, and beside must have cost less wall time.
 */
class GpuMinutesH200RecordTest {
    static final Path RECORD = Records.unpacked("h200-gpu-minutes");

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({
        "ddp-clean,PASS,",
        "ddp-scatter,FAIL,memcheck device-assert __assertfail 82",
        "triton-stride,FAIL,memcheck out-of-bounds row_scale_bias_kernel 51"
    })
    void besideGivesTheSameFindingsInLessTime(String job, String verdict, String defect) throws Exception {
        JsonNode beside = GateRecords.analyze(RECORD, job + "-beside", dir);
        JsonNode after = GateRecords.analyze(RECORD, job + "-after", dir);
        assertThat(beside.get("verdict").asText())
                .isEqualTo(after.get("verdict").asText())
                .isEqualTo(verdict);
        assertThat(GateRecords.findings(beside))
                .isEqualTo(GateRecords.findings(after))
                .containsExactlyElementsOf(defect == null ? List.of() : List.of(defect));
        assertThat(beside.path("diagnosis").path("faultAt").path("line").asInt())
                .isEqualTo(after.path("diagnosis").path("faultAt").path("line").asInt());

        List<String> besideConsole = Files.readAllLines(RECORD.resolve(job + "-beside.console.txt"));
        assertThat(GateRecords.lineOf(besideConsole, "blocking started"))
                .as("beside: the blocking run starts before the sanitizer run ends")
                .isLessThan(GateRecords.lineOf(besideConsole, "sanitizer-memcheck failed after"));
        List<String> afterConsole = Files.readAllLines(RECORD.resolve(job + "-after.console.txt"));
        assertThat(GateRecords.lineOf(afterConsole, "blocking started"))
                .as("after: the blocking run starts once the sanitizer run ended")
                .isGreaterThan(GateRecords.lineOf(afterConsole, "sanitizer-memcheck failed after"));
        for (List<String> console : List.of(besideConsole, afterConsole)) {
            assertThat(GateRecords.lineOf(console, "regression started"))
                    .as("the regression run, whose memory curve is judged, runs alone")
                    .isGreaterThan(GateRecords.lineOf(console, "blocking passed after", "blocking failed after"));
        }

        Map<String, Double> seconds = GateRecords.gateSeconds(RECORD);
        assertThat(seconds.get(job + "-beside")).isLessThan(seconds.get(job + "-after"));
    }
}
