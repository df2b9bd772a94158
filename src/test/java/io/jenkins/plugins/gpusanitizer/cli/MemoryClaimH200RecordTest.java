package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue #25, 1: "GPU memory grows because tensors allocated at X pile up" was printed on every recorded
 * H200 run that reached the regression phase, whatever its memory curve said. {@code analyze --run-dir}
 * over those records: the claim is gone where the curve does not grow and the job did not run out of
 * memory, kept on the leak (inside the curve's growing part) and at the out-of-memory, and no verdict
 * changes.
 */
class MemoryClaimH200RecordTest {
    /**
     * The captures the issue quotes from (all made before its fix). Those of 2026-12-04b-d came with the fix,
     * whose other parts change some of their verdicts on purpose (records/README.md).
     */
    static final List<String> CAPTURES = List.of(
            "h200-2026-12-02",
            "h200-2026-12-03",
            "h200-2026-12-03-verify",
            "h200-2026-12-04-verify",
            "h200-gpu-minutes",
            "h200-gpu-minutes-env",
            "h200-probe",
            "h200-sanitizer-options",
            "h200-signals");

    @TempDir
    Path dir;

    /** Every recorded run with a regression-phase probe log and a report made by the old analysis. */
    static Stream<String> recordedRuns() throws IOException {
        List<String> runs = new ArrayList<>();
        for (String name : CAPTURES) {
            Path record = Records.unpacked(name);
            try (Stream<Path> files = Files.walk(record)) {
                files.filter(p -> p.endsWith(Path.of("regression", "probe.jsonl")))
                        .map(p -> p.getParent().getParent())
                        .filter(run -> Files.isRegularFile(run.resolve("report.json")))
                        .map(run -> name + "/" + record.relativize(run))
                        .forEach(runs::add);
            }
        }
        return runs.stream().sorted();
    }

    private JsonNode analyze(String run, String... more) {
        Path json = dir.resolve("report.json");
        List<String> args = new ArrayList<>(
                List.of("analyze", "--run-dir", Records.unpacked(run).toString(), "--json", json.toString()));
        args.addAll(List.of(more));
        CliRunner r = CliRunner.run(args.toArray(String[]::new));
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 2);
        return CliRunner.json(json);
    }

    private static JsonNode sites(JsonNode report) {
        return report.get("memory").get(0).get("allocationSites");
    }

    @ParameterizedTest
    @MethodSource("recordedRuns")
    void sitesAreBlamedOnlyWhereTheCurveGrowsOrTheJobRanOutOfMemory(String run) {
        JsonNode recorded = CliRunner.json(Records.unpacked(run).resolve("report.json"));
        JsonNode r = analyze(run);
        assertThat(r.get("verdict").asText())
                .as(run + ": the verdict")
                .isEqualTo(recorded.get("verdict").asText());
        JsonNode curve = r.get("memory").get(0);
        JsonNode sites = curve.get("allocationSites");
        boolean curveGrows = "growing".equals(curve.get("shape").asText());
        boolean oom = sites.get("oom") != null && sites.get("oom").isObject();
        String text = r.toString();
        if (curveGrows || oom) {
            assertThat(sites.get("growing").asBoolean()).as(run).isTrue();
            assertThat(sites.get("summary").asText()).as(run).contains(" pile up: ");
        } else {
            assertThat(sites.get("growing").asBoolean()).as(run).isFalse();
            assertThat(text).as(run).doesNotContain("pile up");
            assertThat(sites.get("summary").asText())
                    .as(run)
                    .endsWith("; the memory curve shows no growth (" + wordsOf(curve)
                            + "): no allocation site is blamed.");
        }
        assertThat(text)
                .as(run + ": a site without a Python frame is no file :0")
                .doesNotContain("recorded>:0");
    }

    private static String wordsOf(JsonNode curve) {
        return "stable".equals(curve.get("shape").asText())
                ? "stable"
                : curve.get("description").asText().split("[:(]", 2)[0].trim();
    }

    /** The records the issue quotes: clean, flat or too short, each told that something piles up. */
    @Test
    void theRecordedFalseClaimsAreGone() {
        for (String run : List.of(
                "h200-probe/clean-probe-1", // stable, PASS
                "h200-2026-12-04-verify/final/cudnn-bench", // too short to judge, PASS
                "h200-2026-12-04-verify/cudagraph", // too short, PASS, "<no Python frame recorded>:0"
                "h200-2026-12-04-verify/ddp-scatter")) { // a FAIL without any leak, "<no Python frame recorded>:0"
            JsonNode recorded = CliRunner.json(Records.unpacked(run).resolve("report.json"));
            assertThat(sites(recorded).get("summary").asText())
                    .as(run + " as recorded")
                    .contains(" pile up: ");
            JsonNode r = analyze(run);
            assertThat(sites(r).get("growing").asBoolean()).as(run).isFalse();
            assertThat(r.get("diagnosis").get("notes").toString()).as(run).doesNotContain("pile up");
        }
    }

    @Test
    void aSiteWithoutAPythonFrameIsSaidAsSuchInTheReport() throws IOException {
        String run = "h200-2026-12-04-verify/cudagraph";
        assertThat(sites(CliRunner.json(Records.unpacked(run).resolve("report.json")))
                        .get("summary")
                        .asText())
                .contains("<no Python frame recorded>:0");
        Path html = dir.resolve("report.html");
        analyze(run, "--html", html.toString());
        assertThat(html)
                .content()
                .contains("no Python frame recorded (a C++/library allocation)")
                .doesNotContain("&lt;no Python frame recorded&gt;:0");
    }

    /**
     * The leak (examples/probe/logits_leak.py): the curve grows, and the logits' site is compared between
     * two samples inside the curve's judged window (from 8.0 s of the nvidia-smi samples, the probe's
     * process started 0.07 s after the first one), not from the allocator's first seconds.
     */
    @Test
    void theLeakIsStillNamedFromInsideTheGrowingPartOfTheCurve() {
        JsonNode r = analyze("h200-probe/leak");
        JsonNode curve = r.get("memory").get(0);
        assertThat(curve.get("shape").asText()).isEqualTo("growing");
        JsonNode sites = curve.get("allocationSites");
        assertThat(sites.get("growing").asBoolean()).isTrue();
        int line = ProbeH200RecordTest.marked("logits_leak.py", "PROBE-SITE");
        assertThat(sites.get("summary").asText())
                .startsWith("GPU memory grows because tensors allocated at logits_leak.py:" + line
                        + " (forward) pile up: ");
        double windowStartInProcess = curve.get("judgedFromSeconds").asDouble() - 0.071;
        assertThat(sites.get("warmupSeconds").asDouble())
                .as("the first probe sample inside the judged window, the old comparison was from 4.9 s")
                .isGreaterThanOrEqualTo(windowStartInProcess)
                .isLessThan(windowStartInProcess + 1.5);
        assertThat(r.get("verdict").asText()).isEqualTo("UNSTABLE");
    }

    /** The out-of-memory: the curve is too short to judge, the job ran out of memory, what filled the card is named. */
    @Test
    void theOutOfMemoryStillNamesWhatFilledTheCard() {
        JsonNode r = analyze("h200-probe/oom");
        JsonNode curve = r.get("memory").get(0);
        assertThat(curve.get("description").asText()).startsWith("too short to judge");
        JsonNode sites = curve.get("allocationSites");
        int line = ProbeH200RecordTest.marked("cache_oom.py", "PROBE-SITE");
        assertThat(sites.get("oom").get("summary").asText()).contains("what filled the card: cache_oom.py:" + line);
        assertThat(sites.get("summary").asText())
                .startsWith(
                        "GPU memory grows because tensors allocated at cache_oom.py:" + line + " (remember) pile up: ")
                .contains("at the out-of-memory");
    }
}
