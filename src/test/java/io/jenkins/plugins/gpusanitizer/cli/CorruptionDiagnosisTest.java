package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kernel that writes out of bounds corrupts live tensors; the blocking run then fails later, in the
 * victim (a gather or cross_entropy asserting on a corrupted index). memcheck saw the write first, so
 * the fault is the writing kernel's launch, and the blocking failure is explained as its consequence.
 */
class CorruptionDiagnosisTest {
    @TempDir
    Path dir;

    @Test
    void theOutOfBoundsWriterIsTheFaultAndTheLaterAssertItsConsequence() {
        Path json = dir.resolve("r.json");
        CliRunner r = CliRunner.run(
                "analyze",
                "--sanitizer-log",
                Corpus.file("far-oob/memcheck.log").toString(),
                "--blocking-log",
                H200RunRecordTest.RECORD.resolve("index/blocking/stderr.log").toString(),
                "--json",
                json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        JsonNode d = CliRunner.json(json).get("diagnosis");
        assertThat(d.get("faultAt").get("file").asText()).isEqualTo("train_lstm.py");
        assertThat(d.get("faultAt").get("line").asInt()).isEqualTo(32);
        assertThat(d.get("faultEvidence").asText()).isEqualTo("sanitizer");
        assertThat(d.get("summary").asText())
                .startsWith("compute-sanitizer found Invalid __global__ write of size 4 bytes in kernel scale_shift")
                .contains("the blocking run's failure at lstm_job.py:64")
                .endsWith("is most likely its consequence.");
        assertThat(d.get("notes").toString())
                .contains("only where the error surfaced")
                .doesNotContain("check both");
    }

    @Test
    void whenBlockingAndSanitizerAgreeNothingChanges() {
        Path json = dir.resolve("far.json");
        CliRunner r = CliRunner.run(
                "analyze", "--run-dir", H200RunRecordTest.RECORD.resolve("far").toString(), "--json", json.toString());
        assertThat(r.exit()).isEqualTo(1);
        JsonNode d = CliRunner.json(json).get("diagnosis");
        assertThat(d.get("faultEvidence").asText()).isEqualTo("blocking+sanitizer");
    }
}
