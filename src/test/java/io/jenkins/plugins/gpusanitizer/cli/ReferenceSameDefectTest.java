package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #40, F8: with --reference and --fail-on new, a defect is outstanding only when it is the reference's
 * defect: same kernel, same device line where there is one, same access. The reference is the real H200 memcheck
 * log of the far job (corpus/h200/far-oob: CuPy's scale_shift, no device line info, writes out of bounds, launched
 * from buggy_scale at train_lstm.py:32); the change is that log edited. Without a device line the launching line
 * is all that tells two faults of one kernel apart: a write launched from :40 of the same function, where the one
 * at :32 was fixed, was "outstanding, also in the reference" and passed.
 */
class ReferenceSameDefectTest {
    static final Path LOG = Corpus.file("far-oob/memcheck.log");
    private static final String LAUNCH = "Host Frame: buggy_scale in train_lstm.py:32";

    @TempDir
    Path dir;

    private String recorded;
    private Path reference;

    @BeforeEach
    void reference() throws IOException {
        recorded = Files.readString(LOG, StandardCharsets.UTF_8);
        assertThat(recorded).contains(LAUNCH).doesNotContain("scale_shift+0x160 in ");
        reference = dir.resolve("reference.json");
        CliRunner r = CliRunner.run("analyze", "-q", "--json", reference.toString(), "--sanitizer-log", LOG.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(CliRunner.json(reference).get("defects")).singleElement().satisfies(d -> {
            assertThat(d.get("kernel").asText()).isEqualTo("scale_shift");
            assertThat(d.get("kind").asText()).isEqualTo("out-of-bounds");
            assertThat(d.has("deviceLocation") && !d.get("deviceLocation").isNull())
                    .isFalse();
            assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(32);
        });
    }

    private JsonNode againstReference(int exit, String changedLog) throws IOException {
        Path log = dir.resolve("change.log");
        Files.writeString(log, changedLog, StandardCharsets.UTF_8);
        Path json = dir.resolve("report.json");
        CliRunner r = CliRunner.run(
                "analyze",
                "--json",
                json.toString(),
                "--sanitizer-log",
                log.toString(),
                "--reference",
                reference.toString(),
                "--fail-on",
                "new");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(exit);
        return CliRunner.json(json);
    }

    private static String reason(JsonNode report, String code) {
        return StreamSupport.stream(report.get("reasons").spliterator(), false)
                .filter(x -> x.get("code").asText().equals(code))
                .map(x -> x.get("message").asText())
                .findFirst()
                .orElseThrow();
    }

    private static JsonNode theDefect(JsonNode report) {
        return StreamSupport.stream(report.get("defects").spliterator(), false)
                .filter(d -> !d.get("suppressed").asBoolean())
                .reduce((a, b) -> {
                    throw new AssertionError("more than one defect: " + report.get("defects"));
                })
                .orElseThrow();
    }

    @Test
    void theSameFaultIsOutstandingAndPasses() throws IOException {
        JsonNode report = againstReference(0, recorded);
        assertThat(report.get("verdict").asText()).isEqualTo("PASS");
        assertThat(theDefect(report).get("status").asText()).isEqualTo("outstanding");
        assertThat(reason(report, "reference")).endsWith("0 new, 1 outstanding, 0 fixed");
    }

    @Test
    void aFaultLaunchedFromAnotherLineOfTheSameFunctionIsNewAndFails() throws IOException {
        JsonNode report = againstReference(1, recorded.replace(LAUNCH, "Host Frame: buggy_scale in train_lstm.py:40"));
        assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
        JsonNode d = theDefect(report);
        assertThat(d.get("status").asText()).isEqualTo("new");
        assertThat(d.get("kernel").asText()).isEqualTo("scale_shift");
        assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(40);
        assertThat(report.get("fixed"))
                .singleElement()
                .satisfies(f ->
                        assertThat(f.get("hostLocation").get("line").asInt()).isEqualTo(32));
        assertThat(reason(report, "reference")).endsWith("1 new, 0 outstanding, 1 fixed");
        assertThat(reason(report, "reference-new"))
                .contains("scale_shift out-of-bounds at train_lstm.py:40")
                .contains("another host line (train_lstm.py:32 there, train_lstm.py:40 here)");
    }

    @Test
    void anotherAccessKindAtTheSameLineIsNewAndFails() throws IOException {
        // the same launch, the same kernel: the write is now misaligned where the reference's ran out of bounds
        JsonNode report = againstReference(1, recorded.replace(" is out of bounds", " is misaligned"));
        assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
        JsonNode d = theDefect(report);
        assertThat(d.get("status").asText()).isEqualTo("new");
        assertThat(d.get("kind").asText()).isEqualTo("misaligned");
        assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(32);
        assertThat(reason(report, "reference-new"))
                .contains("another kind of fault (out-of-bounds there, misaligned here)");
    }
}
