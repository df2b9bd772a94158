package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel coverage through {@code analyze --run-dir} on a recorded H100 gate run (cudnn-bench, records/
 * h100-2026-12-07.md) with a census in its blocking folder: report.json's {@code coverage}, the console's line and the
 * HTML page, its names escaped. The run's own records hold no census (the jar of that day had none); the census put
 * in is the one recorded on the same card (word_language_model) with one hostile name added.
 */
class KernelCoverageRunDirTest {
    @TempDir
    Path dir;

    private Path runWithCensus() throws IOException {
        Path run = Records.unzip("h100-2026-12-07-verify-a", dir.resolve("rec")).resolve("cudnn-bench");
        Path census = Files.createDirectories(run.resolve("blocking/census"));
        Files.copy(
                Records.unpacked("h100-2026-12-07-probes/probes/cov/wlm-lstm/census/census-7205.jsonl"),
                census.resolve("census-7205.jsonl"));
        Files.writeString(
                census.resolve("census-7300.jsonl"),
                "{\"type\":\"first\",\"domain\":\"driver\",\"name\":\"<script>alert(1)</script>\",\"index\":9}\n");
        return run;
    }

    @Test
    void eachSanitizerRunSaysWhichOfThePlainRunsKernelsItChecked() throws IOException {
        Path run = runWithCensus();
        Path json = dir.resolve("r.json");
        Path html = dir.resolve("r.html");
        CliRunner r = CliRunner.run(
                "analyze", "--run-dir", run.toString(), "--json", json.toString(), "--html", html.toString());
        JsonNode coverage = CliRunner.json(json).get("coverage");
        assertThat(coverage).hasSize(1);
        JsonNode c = coverage.get(0);
        assertThat(c.get("phase").asText()).isEqualTo("sanitizer-memcheck");
        // a process cut before its exit (the second file): kernels known, the census not complete
        assertThat(c.get("censusComplete").asBoolean()).isFalse();
        assertThat(c.get("distinct").asInt()).isEqualTo(41);
        assertThat(c.get("checked").asInt()).isEqualTo(41);
        assertThat(c.get("summary").asText())
                .startsWith("sanitizer-memcheck checked 41 of the 41 distinct kernels the plain run (blocking) launched"
                        + " before it stopped (every launch of each)");
        assertThat(r.out()).contains("coverage: sanitizer-memcheck checked 41 of the 41");
        String page = Files.readString(html);
        assertThat(page).contains("Kernels checked").contains("&lt;script&gt;alert(1)&lt;/script&gt;");
        assertThat(page).doesNotContain("<script>alert(1)");
    }
}
