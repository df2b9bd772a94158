package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #28: the regression run's memory curve is its own processes', so a second process on the same card
 * does not change its verdict. Recorded on the H200 (records/h200-2026-12-04-beside.zip.xz,
 * examples/h200/capture-2026-12-04-beside.sh): {@code other-grows} is a flat job's regression run while
 * another process on the card leaks about 4 GiB; {@code ours-grows} is a leaking job beside a flat one.
 * {@code analyze --run-dir} judges each again from its raw files.
 */
class MemoryBesideH200RecordTest {
    @TempDir
    Path dir;

    private JsonNode analyze(String run, String... more) {
        Path json = dir.resolve(run + ".json");
        List<String> args = new java.util.ArrayList<>(List.of(
                "analyze",
                "--run-dir",
                Records.unpacked("h200-2026-12-04-beside/" + run).toString(),
                "--json",
                json.toString()));
        args.addAll(List.of(more));
        CliRunner r = CliRunner.run(args.toArray(String[]::new));
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 2);
        return CliRunner.json(json);
    }

    /** memory.used of the card's first and last sample, MiB: what a card-total curve judges. */
    private static double[] cardFirstAndLast(String run) throws IOException {
        List<String> rows =
                Files.readAllLines(Records.unpacked("h200-2026-12-04-beside/" + run + "/regression/nvidia-smi.csv"));
        return new double[] {used(rows.get(1)), used(rows.get(rows.size() - 1))};
    }

    private static double used(String row) {
        return Double.parseDouble(row.split(",")[2].trim());
    }

    @Test
    void aProcessGrowingBesideTheRegressionRunIsNotTheJobsGrowth() throws IOException {
        double[] card = cardFirstAndLast("other-grows");
        assertThat(card[1] - card[0])
                .as("the card's total grew by the other process's leak: judged as it is, it would be the job's")
                .isGreaterThan(3000);

        JsonNode r = analyze("other-grows");

        assertThat(r.get("verdict").asText()).isEqualTo("PASS");
        JsonNode memory = r.get("memory").get(0);
        assertThat(memory.get("basis").asText()).isEqualTo("per-process");
        assertThat(memory.get("source").asText()).endsWith("nvidia-smi-apps.csv");
        assertThat(memory.get("shape").asText()).isEqualTo("stable");
        assertThat(memory.get("peakMiB").asDouble()).isLessThan(1000);
        assertThat(memory.get("basisNote").asText())
                .contains("1 other process(es) on the card")
                .contains("not counted");
        assertThat(r.toString()).doesNotContain("memory grows");
    }

    @Test
    void theJobsOwnGrowthBesideAFlatProcessIsStillFound() {
        JsonNode r = analyze("ours-grows");

        assertThat(r.get("verdict").asText()).isEqualTo("UNSTABLE");
        JsonNode memory = r.get("memory").get(0);
        assertThat(memory.get("basis").asText()).isEqualTo("per-process");
        assertThat(memory.get("shape").asText()).isEqualTo("growing");
        assertThat(memory.get("growthMiBPerMin").asDouble()).isBetween(60.0, 160.0);
    }

    @Test
    void theCardsTotalAloneWouldHaveBlamedTheFlatJob() {
        Path json = dir.resolve("card.json");
        CliRunner r = CliRunner.run(
                "analyze",
                "--memory-csv",
                Records.unpacked("h200-2026-12-04-beside/other-grows/regression/nvidia-smi.csv")
                        .toString(),
                "--json",
                json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 2);

        assertThat(CliRunner.json(json).get("memory").get(0).get("shape").asText())
                .as("what the gate said before the curve was per process")
                .isEqualTo("growing");
    }
}
