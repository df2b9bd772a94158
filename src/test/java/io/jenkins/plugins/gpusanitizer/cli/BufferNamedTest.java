package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.report.CheckRun;
import io.jenkins.plugins.gpusanitizer.engine.report.ExecutionJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #42 through {@code analyze}: the H200's near overrun (corpus near-oob/memcheck-nocache, 64 floats past a
 * 6,400-byte buffer) with an allocation record beside it that has that buffer, written as the probe writes it.
 * The buffer is named wherever the defect is shown; the XML (which has no nearest allocation) takes it from the
 * text record with the same address.
 */
class BufferNamedTest {
    @TempDir
    Path dir;

    private static final String RECORD = String.join(
            "\n",
            "{\"type\":\"alloc-record\",\"frees\":true,\"shapes\":true,\"padding\":4096}",
            "{\"type\":\"alloc-site\",\"id\":1,\"site\":{\"file\":\"/home/ci/workspace/lab/train_lstm.py\",\"line\":28,"
                    + "\"function\":\"buggy_scale\",\"code\":\"out = torch.empty_like(x)\"},\"caller\":{\"file\":"
                    + "\"/home/ci/workspace/lab/train_lstm.py\",\"line\":63,\"function\":\"forward\"}}",
            "{\"type\":\"alloc\",\"ptr\":\"0x7f1982819800\",\"size\":10496,\"site\":1}",
            "{\"type\":\"alloc-shape\",\"ptr\":\"0x7f1982819800\",\"kind\":\"tensor\",\"dtype\":\"float32\","
                    + "\"shape\":[1,32,50]}",
            "");

    private JsonNode analyze(boolean xml, boolean record) throws IOException {
        Path log = Files.copy(Corpus.file("near-oob/memcheck-nocache.log"), dir.resolve("memcheck.log"));
        Files.copy(Corpus.file("near-oob/memcheck-nocache.xml"), dir.resolve("memcheck.xml"));
        if (record) {
            Files.writeString(dir.resolve("alloc-41.jsonl"), RECORD);
        }
        Path json = dir.resolve("report.json");
        CliRunner r = xml
                ? CliRunner.run(
                        "analyze",
                        "--sanitizer-log",
                        log.toString(),
                        "--sanitizer-xml",
                        dir.resolve("memcheck.xml").toString(),
                        "--json",
                        json.toString(),
                        "--html",
                        dir.resolve("report.html").toString(),
                        "--sarif",
                        dir.resolve("report.sarif").toString())
                : CliRunner.run("analyze", "--sanitizer-log", log.toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 2);
        return CliRunner.json(json);
    }

    @Test
    void theDefectSaysWhichBufferItRanPastAndWhereItWasAllocated() throws IOException {
        JsonNode r = analyze(true, true);
        JsonNode buffer = r.get("defects").get(0).get("buffer");
        assertThat(buffer.get("placement").asText()).isEqualTo("after");
        assertThat(buffer.get("base").asText()).isEqualTo("0x7f1982819800");
        assertThat(buffer.get("size").asLong()).isEqualTo(6400);
        assertThat(buffer.get("site").get("line").asInt()).isEqualTo(28);
        assertThat(buffer.get("shape").asText()).isEqualTo("float32 [1, 32, 50]");
        String line = "1 byte past the end of a 6,400-byte buffer (float32 [1, 32, 50]) allocated at train_lstm.py:28"
                + " (buggy_scale)";
        assertThat(buffer.get("summary").asText()).isEqualTo(line);
        assertThat(r.get("reasons").toString()).contains(line);
        assertThat(Files.readString(dir.resolve("report.html"))).contains(line);
        JsonNode related = CliRunner.json(dir.resolve("report.sarif")).at("/runs/0/results/0/relatedLocations");
        assertThat(related.toString())
                .contains("train_lstm.py")
                .contains("\"startLine\":28")
                .contains(line);
    }

    @Test
    void theChecksAnnotationSaysItToo() throws IOException {
        analyze(true, true);
        Report report = ReportJson.read(dir.resolve("report.json"));
        // the run's working directory: the annotation is placed at the job's launch line, and names the buffer
        Report withWorkspace = report.copy()
                .execution(new ExecutionJson(null, List.of(), null, null, null, null, null, "/home/ci/workspace/lab"))
                .build();
        assertThat(CheckRun.of(withWorkspace, "gpu-sanitize").annotations())
                .anySatisfy(a -> assertThat(a.message()).contains("1 byte past the end of a 6,400-byte buffer"));
    }

    @Test
    void theFingerprintIsTheSameWithAndWithoutTheRecord() throws IOException {
        String with = analyze(false, true).get("defects").get(0).get("id").asText();
        Files.delete(dir.resolve("alloc-41.jsonl"));
        Files.delete(dir.resolve("memcheck.log"));
        Files.delete(dir.resolve("memcheck.xml"));
        JsonNode without = analyze(false, false);
        assertThat(without.get("defects").get(0).get("id").asText()).isEqualTo(with);
        assertThat(without.get("defects").get(0).has("buffer"))
                .as("no record: nothing added")
                .isFalse();
    }
}
