package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage mode {@code kernels} on the card (issue #49, the sixth session of 2026-12-07: an H100 80GB HBM3, driver
 * 580.159.04, compute-sanitizer 2025.3.1, torch 2.11.0+cu130; {@code COVERAGE_MODES="plain kernels"
 * examples/public/verify.sh}, records/h100-2026-12-07-kernels.zip.xz): three public training programs (the DDP tutorial
 * under torchrun, nanoGPT, dcgan) and the hand-written SGD LSTM, each stopped by its probe where the blocking run's
 * census said every kernel had appeared; read again by {@code analyze --run-dir} with this tree's code.
 */
class KernelsModeH100RecordTest {
    private static final String RECORD = "h100-2026-12-07-kernels";

    @TempDir
    Path dir;

    private JsonNode analyzed(String job) {
        return CliRunner.analyzeRunDir(Records.unpacked(RECORD + "/" + job + "-kernels"), dir);
    }

    private static List<String> codes(JsonNode report) {
        List<String> codes = new ArrayList<>();
        report.get("reasons").forEach(r -> codes.add(r.get("code").asText()));
        return codes;
    }

    private static String stopSentence(JsonNode report) {
        for (JsonNode r : report.get("reasons")) {
            if (r.get("code").asText().equals("coverage-stop")) {
                return r.get("message").asText();
            }
        }
        throw new AssertionError("no coverage-stop in " + codes(report));
    }

    private static JsonNode work(JsonNode report, String run) {
        for (JsonNode w : report.get("work")) {
            if (w.get("run").asText().equals(run)) {
                return w;
            }
        }
        throw new AssertionError("no work for " + run);
    }

    @Test
    void eachProgramPassesStoppedAfterEveryKernelOfThePlainRunWasCheckedAndSaysWhere() {
        // job, the sentence's "until" part, the census's distinct kernels
        String[][] cases = {
            {"ddp", "until the job's optimizer step 3 (of the 320 the blocking run took)", "15"},
            {"nanogpt", "until the job's optimizer step 3 (of the 41 the blocking run took)", "67"},
            {"dcgan", "until the job's optimizer step 32 (of the 64 the blocking run took)", "112"},
            {"hand-lstm", "until the job's backward pass 44 (of the 60 the blocking run took)", "20"},
        };
        for (String[] c : cases) {
            JsonNode report = analyzed(c[0]);
            assertThat(report.get("verdict").asText())
                    .as(c[0] + " " + codes(report))
                    .isEqualTo("PASS");
            assertThat(codes(report)).as(c[0]).doesNotContain("less-work", "coverage-stop-unset");
            assertThat(stopSentence(report)).as(c[0]).contains(c[1]).contains("all " + c[2] + " of its kernels");
            JsonNode sanitizer = work(report, "sanitizer-memcheck");
            assertThat(sanitizer.get("end").asText()).as(c[0]).isEqualTo("stopped");
            JsonNode coverage = report.get("coverage").get(0);
            assertThat(coverage.get("checked").asInt()).as(c[0]).isEqualTo(Integer.parseInt(c[2]));
            assertThat(coverage.get("distinct").asInt()).as(c[0]).isEqualTo(Integer.parseInt(c[2]));
            coverage.get("kernels")
                    .forEach(k -> assertThat(k.get("checked").asText()).isEqualTo("first-launches"));
        }
    }

    @Test
    void nanoGptThatRanOutOfMemoryUnderTheToolAtStep21EndsAtStep3Clean() {
        // the same nanoGPT command ran out of memory under memcheck at step 21 in full mode (h100-nanogpt-oom.md)
        JsonNode report = analyzed("nanogpt");
        assertThat(codes(report)).doesNotContain("sanitizer-only-oom", "oom");
        assertThat(work(report, "sanitizer-memcheck").get("optimizerSteps").asLong())
                .isEqualTo(3);
        assertThat(work(report, "blocking").get("optimizerSteps").asLong()).isEqualTo(41);
    }
}
