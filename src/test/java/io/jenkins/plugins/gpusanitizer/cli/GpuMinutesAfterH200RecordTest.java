package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #28, before and after on the H200, the same jobs the same day (examples/h200/capture-2026-12-04-after.sh,
 * records/h200-2026-12-04-gpu-minutes-after-{a,...,f}.zip.xz): each example job's gate with the jar of ee75943 (the
 * regression run after the sanitizer run) and the new jars (beside it). Every run directory is judged again from its
 * raw files by today's {@code analyze --run-dir}: no verdict changed, neither between the jars nor since they ran.
 */
class GpuMinutesAfterH200RecordTest {
    private static final String RECORD = "h200-2026-12-04-gpu-minutes-after-";

    @TempDir
    Path dir;

    private JsonNode analyze(Path run) {
        return CliRunner.analyzeRunDir(run, dir);
    }

    /** The run directories of one part: job-JAR folders with a report.json, by name. */
    private static Map<String, Path> runs(String part) throws IOException {
        Map<String, Path> runs = new TreeMap<>();
        try (Stream<Path> entries = Files.list(Records.unpacked(RECORD + part))) {
            entries.filter(p -> Files.isRegularFile(p.resolve("report.json")))
                    .forEach(p -> runs.put(p.getFileName().toString(), p));
        }
        return runs;
    }

    private static String job(String run) {
        return run.substring(0, run.lastIndexOf('-'));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "b", "c", "d", "e", "f"})
    void everyRecordedGateIsJudgedAsItWasAndAsTheJobIs(String part) throws IOException {
        Map<String, Path> runs = runs(part);
        assertThat(runs).isNotEmpty();
        for (Map.Entry<String, Path> run : runs.entrySet()) {
            String recorded = CliRunner.json(run.getValue().resolve("report.json"))
                    .get("verdict")
                    .asText();
            String now = analyze(run.getValue()).get("verdict").asText();
            String expected = job(run.getKey()).equals("triton-stride") ? "FAIL" : "PASS";
            assertThat(now).as(run.getKey() + ": judged again").isEqualTo(recorded);
            assertThat(recorded).as(run.getKey() + ": the job is " + expected).isEqualTo(expected);
        }
    }

    @Test
    void theBuggyJobFailsAtItsKernelLineWithEveryJar() throws IOException {
        Map<String, Path> triton = new TreeMap<>();
        for (String part : List.of("b", "e")) {
            runs(part).forEach((name, run) -> {
                if (job(name).equals("triton-stride")) {
                    triton.put(name, run);
                }
            });
        }
        assertThat(triton).containsOnlyKeys("triton-stride-ee75943", "triton-stride-4a4190c", "triton-stride-992a31f");
        for (Map.Entry<String, Path> run : triton.entrySet()) {
            JsonNode r = analyze(run.getValue());
            assertThat(r.get("diagnosis").get("faultAt").get("line").asInt())
                    .as(run.getKey())
                    .isEqualTo(51);
            assertThat(r.toString())
                    .as(run.getKey())
                    .contains("in kernel row_scale_bias_kernel at examples/triton_stride.py:40, launched from"
                            + " examples/triton_stride.py:51");
        }
    }

    @Test
    void theRegressionRunWentBesideTheSanitizerRunOnlyWithTheNewJars() throws IOException {
        for (String part : List.of("a", "b", "c", "d", "e", "f")) {
            for (Map.Entry<String, Path> run : runs(part).entrySet()) {
                JsonNode regression = regression(CliRunner.json(run.getValue().resolve("report.json")));
                // ee75943 wrote no ranBeside: it never ran the regression run beside
                boolean before = run.getKey().endsWith("-ee75943");
                assertThat(regression.path("ranBeside").asBoolean(false))
                        .as(run.getKey())
                        .isEqualTo(!before);
            }
        }
    }

    @Test
    void besideTheSanitizerRunTheMemoryCurveIsTheJobsOwnProcesses() throws IOException {
        Path run = runs("b").get("cudnn-bench-4a4190c");
        List<String> pids = Files.readAllLines(run.resolve("regression/gpu-pids.txt"));
        assertThat(pids).anyMatch(l -> l.endsWith(" other")).anyMatch(l -> l.contains(" ours"));
        assertThat(Files.readAllLines(run.resolve("regression/nvidia-smi-apps.csv"))
                        .get(0))
                .as("nvidia-smi's own header on the H200 (driver 580.159.04)")
                .isEqualTo("timestamp, pid, used_gpu_memory [MiB]");

        JsonNode memory = analyze(run).get("memory").get(0);

        assertThat(memory.get("basis").asText()).isEqualTo("per-process");
        assertThat(memory.get("source").asText()).endsWith("nvidia-smi-apps.csv");
        assertThat(memory.get("basisNote").asText())
                .contains("2 other process(es) on the card")
                .contains("not counted")
                .contains("the card was shared with the sanitizer run");
    }

    @Test
    void theFinalJarDecidesEarlyOnlyOnceTheCardShowsAtLeastACudaContext() throws IOException {
        Map<String, Path> finalJars = new TreeMap<>(runs("d"));
        finalJars.putAll(runs("e"));
        finalJars.putAll(runs("f"));
        assertThat(finalJars).hasSize(7);
        for (Map.Entry<String, Path> run : finalJars.entrySet()) {
            String note = regression(CliRunner.json(run.getValue().resolve("report.json")))
                    .get("note")
                    .asText();
            assertThat(note).as(run.getKey()).contains("room for it 3 times over");
            String peak = note.substring(note.indexOf("the job peaked at ") + "the job peaked at ".length());
            double mib =
                    Double.parseDouble(peak.substring(0, peak.indexOf(" MiB")).replace(",", ""));
            assertThat(mib).as(run.getKey() + ": " + note).isGreaterThanOrEqualTo(256);
        }
        // the jar before that floor decided on what a job still importing torch showed
        String early = regression(
                        CliRunner.json(runs("b").get("prefetch-4a4190c").resolve("report.json")))
                .get("note")
                .asText();
        assertThat(early).contains("the job peaked at 1 MiB");
    }

    private static JsonNode regression(JsonNode report) {
        for (JsonNode phase : report.get("execution").get("phases")) {
            if (phase.get("name").asText().equals("regression")) {
                return phase;
            }
        }
        throw new AssertionError(
                "no regression phase in " + report.get("execution").get("runDirectory"));
    }
}
