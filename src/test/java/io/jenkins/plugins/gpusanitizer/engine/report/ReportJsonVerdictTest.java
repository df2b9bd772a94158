package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verdict is a {@link Verdict} in the code and the same four words in report.json (docs/report-schema.md):
 * a report written before the type keeps reading, and a verdict outside the four is not a report.
 */
class ReportJsonVerdictTest {
    @TempDir
    Path dir;

    @Test
    void theVerdictIsWrittenAndReadAsItsWord() throws IOException {
        Report far = Corpus.analyzeRun("far");
        assertThat(far.verdict()).isEqualTo(Verdict.FAIL);
        JsonNode json = ReportJson.mapper().readTree(ReportJson.toJson(far));
        assertThat(json.get("verdict").isTextual()).isTrue();
        assertThat(json.get("verdict").asText()).isEqualTo("FAIL");

        // the report the H200 run wrote itself, with the verdict as a string
        Report recorded = ReportJson.read(Corpus.runRecord("far").resolve("report.json"));
        assertThat(recorded.verdict()).isEqualTo(Verdict.FAIL);
    }

    @Test
    void aVerdictOutsideTheFourIsNotAReport() throws IOException {
        Path odd = Files.writeString(
                dir.resolve("odd.json"),
                "{\"schemaVersion\": 1, \"verdict\": \"MAYBE\", \"reasons\": [], \"defects\": []}\n");
        assertThatThrownBy(() -> ReportJson.read(odd))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith(odd + ": not a gpu-sanitize report JSON: ")
                .hasMessageContaining("MAYBE")
                .hasMessageNotContaining("\n");
    }
}
