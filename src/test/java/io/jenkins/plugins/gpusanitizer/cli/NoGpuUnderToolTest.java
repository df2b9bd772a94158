package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #25, 10: under compute-sanitizer torch could not initialise CUDA, warned, and the job trained
 * on the CPU; memcheck's summary said 0 errors and the gate passed. The log is the real H200 clean
 * memcheck log with the job's output beside the tool's, as compute-sanitizer prints it without
 * --log-file; the warning is torch's own (c10/cuda/CUDAFunctions.cpp, shown from torch/cuda/__init__.py),
 * bad-inputs/cuda-init-failed.stderr.
 */
class NoGpuUnderToolTest {
    @TempDir
    Path dir;

    @Test
    void aCleanSummaryOfAJobThatSawNoGpuIsAnError() throws IOException {
        String clean = Files.readString(Corpus.file("near-oob/memcheck-caching-allocator.log"), StandardCharsets.UTF_8);
        String warning = Files.readString(FailOpenTest.bad("cuda-init-failed.stderr"), StandardCharsets.UTF_8);
        String banner = "========= COMPUTE-SANITIZER\n";
        assertThat(clean).startsWith(banner).contains("ERROR SUMMARY: 0 errors");
        Path log = dir.resolve("memcheck-stdout.log");
        Files.writeString(
                log,
                banner + warning + "step 0 loss 2.3026 on cpu\n" + clean.substring(banner.length()),
                StandardCharsets.UTF_8);
        Path json = dir.resolve("report.json");

        CliRunner r = CliRunner.run("analyze", "--json", json.toString(), "--sanitizer-log", log.toString());

        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(3);
        JsonNode report = CliRunner.json(json);
        assertThat(report.get("verdict").asText()).isEqualTo("ERROR");
        assertThat(StreamSupport.stream(report.get("reasons").spliterator(), false)
                        .filter(x -> x.get("code").asText().equals("no-gpu"))
                        .map(x -> x.get("level").asText() + ": "
                                + x.get("message").asText()))
                .singleElement()
                .satisfies(m -> assertThat(m)
                        .startsWith("error: memcheck in " + log)
                        .contains("'CUDA initialization: Unexpected error from cudaGetDeviceCount()")
                        .contains("Error 802: system not yet initialized'")
                        .doesNotContain("Triggered internally")
                        .endsWith("memcheck checked nothing"));
    }

    @Test
    void theRecordedCleanLogAloneStillPasses() {
        CliRunner r = CliRunner.run(
                "analyze",
                "--sanitizer-log",
                Corpus.file("near-oob/memcheck-caching-allocator.log").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
    }
}
