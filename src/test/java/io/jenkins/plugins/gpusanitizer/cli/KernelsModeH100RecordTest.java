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

    /** The probe's records of one run of the DDP job, in the order written (each carries its wall clock, ts). */
    private static List<JsonNode> ddpProbe(String run) throws java.io.IOException {
        List<JsonNode> out = new ArrayList<>();
        Path file = Records.unpacked(RECORD + "/ddp-kernels/" + run + "/probe.jsonl");
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (String line : java.nio.file.Files.readAllLines(file)) {
            out.add(json.readTree(line));
        }
        return out;
    }

    /** The wall clock of the rank's first record of that work event (the optimizer built, the first backward pass). */
    private static double rankAt(List<JsonNode> records, String event, String field, long atLeast) {
        return records.stream()
                .filter(r -> r.path("rank").asText().equals("0")
                        && r.path("event").asText().equals(event)
                        && (field == null || r.path(field).asLong() >= atLeast))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + event + " of rank 0"))
                .get("ts")
                .asDouble();
    }

    /**
     * Where the DDP gate's 2.09x went (its sanitizer run took 39.0 s): not to torchrun, whose agent ended 0.2 s after
     * its rank's coverage stop, but to the rank's way from its optimizer to its first backward pass (the process group,
     * DDP's broadcast of the weights, the first forward): 26.3 s under the tool against 5.4 s in the blocking run.
     * (The probe's {@code t} counts from each process's own start: the agent's and the rank's differ by the 5 s the
     * agent takes to start the rank.)
     */
    @Test
    void theDdpSanitizerRunSpentItsTimeBeforeTheFirstStepNotInTorchrunsEnd() throws java.io.IOException {
        List<JsonNode> sanitizer = ddpProbe("sanitizer-memcheck");
        List<JsonNode> blocking = ddpProbe("blocking");

        double stop = sanitizer.stream()
                .filter(r -> r.path("type").asText().equals("coverage-stop"))
                .findFirst()
                .orElseThrow()
                .get("ts")
                .asDouble();
        double agentExit = sanitizer.stream()
                .filter(r -> r.path("type").asText().equals("work")
                        && r.path("event").asText().equals("exit")
                        && !r.has("rank"))
                .findFirst()
                .orElseThrow()
                .get("ts")
                .asDouble();
        assertThat(agentExit - stop)
                .as("torchrun's agent after its rank's stop")
                .isBetween(0.0, 1.0);

        double underTool = rankAt(sanitizer, "progress", "backward", 1) - rankAt(sanitizer, "optimizers", null, 0);
        double plain = rankAt(blocking, "progress", "backward", 1) - rankAt(blocking, "optimizers", null, 0);
        assertThat(underTool).isBetween(26.0, 27.0);
        assertThat(plain).isBetween(5.0, 6.0);

        // the report's "first step after" says the same of each run: from its first process's start (torchrun's agent)
        JsonNode report = analyzed("ddp");
        assertThat(work(report, "sanitizer-memcheck").get("firstWorkSeconds").asDouble())
                .isBetween(37.5, 38.5);
        assertThat(work(report, "blocking").get("firstWorkSeconds").asDouble()).isBetween(14.5, 15.5);
        assertThat(work(report, "regression").get("firstWorkSeconds").asDouble())
                .isBetween(13.5, 14.5);
    }
}
