package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.report.CheckRun;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #42 through the gate (examples/h200/capture-buffer.sh bugs, an H100 the device tool gave, jar 0e56839;
 * records/h100-buffer-gate.md): {@code gpu-sanitize run} on the five out-of-bounds example jobs, each run in its own
 * copy of the working directory (the CLI's default), read again by {@code analyze --run-dir}. Each buffer is named
 * with the job's line that allocated it, and that line is the one in this repository's example that allocates it.
 * The job's frames named the sanitizer run's copy ({@code RUN_DIR/workspaces/sanitizer-memcheck/...}); the report
 * names the working directory's file, so the console, the JSON, SARIF and the check annotations lead to the checkout.
 */
class BufferGateH100RecordTest {
    /** The device's checkout, where the gate ran: run.json's workDirectory. */
    private static final String WORK = "/work/main/";

    @TempDir
    Path dir;

    private record Judged(JsonNode report, JsonNode defect, JsonNode sarif, String console) {
        JsonNode buffer() {
            return defect.get("buffer");
        }
    }

    private Judged judged(String job) {
        return judged("h100-buffer-gate", job);
    }

    private Judged judged(String record, String job) {
        Path run = Records.unpacked(record + "/" + job);
        Path json = dir.resolve(job + ".json");
        Path sarif = dir.resolve(job + ".sarif");
        CliRunner r = CliRunner.run(
                "analyze", "--run-dir", run.toString(), "--json", json.toString(), "--sarif", sarif.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        JsonNode report = CliRunner.json(json);
        assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
        JsonNode withBuffer = null;
        for (JsonNode d : report.get("defects")) {
            if (d.has("buffer")) {
                assertThat(withBuffer).as("one access defect per job").isNull();
                withBuffer = d;
            }
        }
        assertThat(withBuffer).as(report.get("defects").toString()).isNotNull();
        return new Judged(report, withBuffer, CliRunner.json(sarif), r.out());
    }

    /** The example's own line, as this repository holds it (the build runs in the root or in standalone/). */
    private static String line(String file, int line) throws IOException {
        Path repo = Path.of("").toAbsolutePath();
        while (!Files.isRegularFile(repo.resolve(file)) && repo.getParent() != null) {
            repo = repo.getParent();
        }
        List<String> lines = Files.readAllLines(repo.resolve(file), StandardCharsets.UTF_8);
        return lines.get(line - 1).strip();
    }

    private static void namedInTheCheckout(Judged j, String file, int line) throws IOException {
        JsonNode site = j.buffer().get("site");
        assertThat(site.get("file").asText())
                .as("the working directory's file, not the run's copy")
                .isEqualTo(WORK + file);
        assertThat(site.get("line").asInt()).isEqualTo(line);
        assertThat(line(file, line))
                .as("the line allocates the buffer")
                .isEqualTo(site.get("code").asText());
        assertThat(j.report().toString()).doesNotContain("/workspaces/sanitizer-memcheck/" + file);
        assertThat(j.console()).contains("allocated at " + file + ":" + line);
    }

    @Test
    void theCupyPackageKernelRanPastTheOutputOfOpsLine29() throws IOException {
        Judged j = judged("cupy-oob");
        assertThat(j.buffer().get("summary").asText())
                .isEqualTo(
                        "1 byte past the end of a 65,536-byte buffer allocated at examples/cupy_pkg/trainer/ops.py:29"
                                + " (jitter)");
        namedInTheCheckout(j, "examples/cupy_pkg/trainer/ops.py", 29);
        assertThat(j.defect().at("/hostLocation/file").asText()).isEqualTo(WORK + "examples/cupy_pkg/trainer/ops.py");
    }

    @Test
    void theTritonStrideBugRanPastTheLabelBufferOfLine88() throws IOException {
        Judged j = judged("triton-stride");
        assertThat(j.buffer().get("summary").asText())
                .isEqualTo("897 bytes past the end of a 512-byte buffer (int64 [64]) allocated at"
                        + " examples/triton_stride.py:88 (main)");
        namedInTheCheckout(j, "examples/triton_stride.py", 88);
        assertThat(j.defect().at("/deviceLocation/file").asText()).isEqualTo(WORK + "examples/triton_stride.py");
        assertThat(j.defect().at("/deviceLocation/line").asInt()).isEqualTo(40);
    }

    @Test
    void theOffByOneScatterAddRanOneRowPastTheNodeBuffer() throws IOException {
        Judged j = judged("scatter-add");
        assertThat(j.buffer().get("summary").asText())
                .isEqualTo("1 byte past the end of a 25,600-byte buffer (float32 [400, 16]) allocated at"
                        + " examples/buffer/scatter_add_job.py:33 (scatter_sum)");
        namedInTheCheckout(j, "examples/buffer/scatter_add_job.py", 33);
    }

    @Test
    void theExtensionRanPastTheOutputItAllocatedInTheCallAtLine62() throws IOException {
        Judged j = judged("inline-ext");
        assertThat(j.buffer().get("summary").asText())
                .isEqualTo(
                        "1 byte past the end of a 6,400-byte buffer allocated at examples/buffer/inline_ext_job.py:62"
                                + " (main)");
        namedInTheCheckout(j, "examples/buffer/inline_ext_job.py", 62);
    }

    @Test
    void theFarWritesNearestAllocationIsNoneTheJobMadeAndTheLineSaysSo() {
        Judged j = judged("far");
        assertThat(j.buffer().get("placement").asText()).isEqualTo("unnamed");
        assertThat(j.buffer().has("site")).isFalse();
        assertThat(j.buffer().get("summary").asText())
                .contains("bytes past the end of a 512-byte allocation at 0x")
                .contains("the job's allocation record has none there")
                .doesNotContain("allocated at");
        assertThat(j.defect().at("/hostLocation/file").asText()).isEqualTo(WORK + "examples/lstm_job.py");
    }

    /** SARIF and the check lead to the checkout's file: the run's copy is not in the repository a reader opens. */
    @Test
    void sarifAndTheCheckAnnotationNameTheRepositorysFile() {
        Judged j = judged("scatter-add");
        JsonNode result = j.sarif().at("/runs/0/results/0");
        assertThat(result.at("/locations/0/physicalLocation/artifactLocation/uri")
                        .asText())
                .isEqualTo(WORK + "examples/buffer/scatter_add_job.py");
        assertThat(result.at("/relatedLocations").toString())
                .contains(WORK + "examples/buffer/scatter_add_job.py")
                .doesNotContain("/workspaces/");
        CheckRun check = CheckRun.of(
                ReportJson.mapper()
                        .convertValue(j.report(), io.jenkins.plugins.gpusanitizer.engine.report.Report.class),
                "gpu-sanitize");
        assertThat(check.annotations())
                .extracting(CheckRun.Annotation::path)
                .contains("examples/buffer/scatter_add_job.py")
                .allSatisfy(p -> assertThat(p).doesNotContain("workspaces"));
    }

    /**
     * Two torchrun ranks of the scatter-add job on one card under one memcheck (records/h100-buffer-ranks.zip.xz, jar
     * abb238f): memcheck's records carry no pid, each rank wrote its own allocation record. The address memcheck
     * names is in one rank's record only, so the buffer is named from it; had the ranks held different allocations
     * there, nothing would be named.
     */
    @Test
    void twoRanksOnOneCardStillNameTheBufferWhereOnlyOneRankHadIt() throws IOException {
        Judged j = judged("h100-buffer-ranks", "scatter-add-ranks");
        assertThat(j.buffer().get("summary").asText())
                .isEqualTo("1 byte past the end of a 25,600-byte buffer (float32 [400, 16]) allocated at"
                        + " examples/buffer/scatter_add_job.py:33 (scatter_sum)");
        assertThat(j.defect().get("records").asInt())
                .as("both ranks ran past it")
                .isEqualTo(32);
        String base = "\"ptr\":\"" + j.buffer().get("base").asText() + "\"";
        Path phase = Records.unpacked("h100-buffer-ranks/scatter-add-ranks/sanitizer-memcheck");
        List<Path> records;
        try (var files = Files.list(phase)) {
            records = files.filter(f -> f.getFileName().toString().startsWith("alloc-"))
                    .sorted()
                    .toList();
        }
        assertThat(records).hasSize(2);
        assertThat(records)
                .filteredOn(f -> contains(f, base))
                .as("the rank whose record holds memcheck's allocation")
                .hasSize(1);
        assertThat(j.report().get("work"))
                .allSatisfy(w -> assertThat(w.get("cudaProcesses").asInt()).isEqualTo(2));
    }

    private static boolean contains(Path file, String text) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).contains(text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
