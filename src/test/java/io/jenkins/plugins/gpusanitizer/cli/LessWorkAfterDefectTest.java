package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #48, 4: a memcheck run that stopped at the very defect the report names is not judged for less work ("did 0
 * optimizer step(s) where blocking did 30 … likely cause: state another run left" was said after a CuPy kernel's
 * out-of-bounds read). On the card's scatter-add job (records/h100-buffer-gate.zip.xz, {@code scatter-add}: FAIL,
 * memcheck's run died after its off-by-one write), with the defect in its first step: the probe's one progress record
 * taken out, as a job whose defect comes before its first optimizer step writes none. The same job's clean record
 * (records/h100-buffer-cost-2.zip.xz) with its memcheck run at 0 steps is still less work: the rule is not gone.
 */
class LessWorkAfterDefectTest {
    @TempDir
    Path dir;

    private static void noSteps(Path probe) throws IOException {
        List<String> lines = Files.readAllLines(probe, StandardCharsets.UTF_8).stream()
                .filter(l -> !l.contains("\"event\":\"progress\""))
                .map(l -> l.contains("\"event\":\"exit\"") ? l.replaceFirst("\"steps\":\\d+", "\"steps\":0") : l)
                .toList();
        Files.write(probe, lines, StandardCharsets.UTF_8);
    }

    @Test
    void aMemcheckRunThatStoppedAtItsDefectBeforeItsFirstStepIsNoLessWork() throws IOException {
        Path run = Records.unzip("h100-buffer-gate", dir.resolve("bugs")).resolve("scatter-add");
        noSteps(run.resolve("sanitizer-memcheck/probe.jsonl"));

        JsonNode r = CliRunner.analyzeRunDir(run, dir);

        assertThat(r.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(r.get("work").get(0).get("optimizerSteps").asLong()).isZero();
        assertThat(r.get("work").get(0).get("stoppedAtDefect").asBoolean()).isTrue();
        assertThat(r.get("reasons").toString()).doesNotContain("less-work", "likely cause", "did 0 optimizer step(s)");
    }

    @Test
    void theCleanJobsMemcheckRunAtNoStepIsStillLessWork() throws IOException {
        Path run = Records.unzip("h100-buffer-cost-2", dir.resolve("clean")).resolve("scatter-add-5a12a0b");
        noSteps(run.resolve("sanitizer-memcheck/probe.jsonl"));

        JsonNode r = CliRunner.analyzeRunDir(run, dir);

        assertThat(r.get("verdict").asText()).isEqualTo("ERROR");
        assertThat(r.get("reasons").toString())
                .contains("sanitizer-memcheck did 0 optimizer step(s) where blocking did 60")
                .doesNotContain("likely cause");
    }
}
