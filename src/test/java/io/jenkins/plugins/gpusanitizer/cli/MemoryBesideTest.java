package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #28: the regression run beside the sanitizer run on one card. Its memory verdict is the job's own
 * processes' (nvidia-smi per process), so the sanitizer run's memory cannot make it, in either direction; without
 * per-process figures a shared card is not judged. Run directories made of the hand-made two-process card of
 * memory-curves/beside (real H200 figures) and of the H200 probe record, analysed as {@code analyze --run-dir}.
 */
class MemoryBesideTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** A run directory whose regression run ran beside the sanitizer run (or not) with these samples. */
    private Path runDir(String name, String card, String apps, String pids, boolean beside) throws IOException {
        Path run = dir.resolve(name);
        Path regression = Files.createDirectories(run.resolve("regression"));
        copy(card, regression.resolve("nvidia-smi.csv"));
        if (apps != null) {
            copy(apps, regression.resolve("nvidia-smi-apps.csv"));
            copy(pids, regression.resolve("gpu-pids.txt"));
        }
        Files.writeString(
                run.resolve("run.json"),
                "{\"schemaVersion\": 1, \"expandableSegments\": false, \"tools\": [], \"finished\": true,"
                        + " \"execution\": {\"phases\": [{\"name\": \"regression\", \"command\": [\"python3\","
                        + " \"train.py\"], \"gpu\": \"0\", \"status\": \"passed\", \"exitCode\": 0, \"wallSeconds\":"
                        + " 24.5, \"files\": [], \"ranBeside\": " + beside + "}]}}");
        return run;
    }

    private static void copy(String handmade, Path to) throws IOException {
        Files.copy(Corpus.resource("/memory-curves/beside/" + handmade), to, StandardCopyOption.REPLACE_EXISTING);
    }

    private JsonNode analyze(Path run) {
        Path json = dir.resolve(run.getFileName() + ".json");
        Path html = dir.resolve(run.getFileName() + ".html");
        CliRunner r = CliRunner.run(
                "analyze", "--run-dir", run.toString(), "--json", json.toString(), "--html", html.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 2);
        return CliRunner.json(json);
    }

    private String html(String run) throws IOException {
        return Files.readString(dir.resolve(run + ".html"));
    }

    private static List<String> codes(JsonNode report) {
        List<String> codes = new ArrayList<>();
        report.get("reasons")
                .forEach(r ->
                        codes.add(r.get("level").asText() + " " + r.get("code").asText()));
        return codes;
    }

    @Test
    void theSanitizerRunClimbingBesideAFlatJobIsNoGrowthOfTheJob() throws IOException {
        JsonNode r = analyze(runDir(
                "other-grows",
                "other-grows.card-handmade.csv",
                "other-grows.apps-handmade.csv",
                "gpu-pids-handmade.txt",
                true));
        JsonNode m = r.get("memory").get(0);
        assertThat(m.get("shape").asText()).as(m.toString()).isEqualTo("stable");
        assertThat(m.get("peakMiB").asDouble()).isEqualTo(853);
        assertThat(m.get("description").asText()).startsWith("stable after ");
        assertThat(m.get("basis").asText()).isEqualTo("per-process");
        assertThat(m.get("basisNote").asText())
                .isEqualTo("per-process: the sum of the job's own 1 process(es) on the card (nvidia-smi per process,"
                        + " pids 51377); 1 other process(es) on the card (up to 14357 MiB together) not counted;"
                        + " the card was shared with the sanitizer run");
        assertThat(codes(r)).noneMatch(c -> c.contains("memory-growth"));
        assertThat(r.get("verdict").asText()).isEqualTo("PASS");
        assertThat(r.get("inputs").toString()).contains("nvidia-smi-apps.csv", "gpu-pids.txt");
        assertThat(html("other-grows"))
                .as("the page says which curve was judged, in one line")
                .contains("<li class=\"gs-basis\">Curve: per-process: the sum of the job&#39;s own 1 process(es)");

        // the same card judged by its total, as before per-process figures: the sanitizer run's climb is "growth"
        JsonNode total = analyze(runDir("other-grows-total", "other-grows.card-handmade.csv", null, null, false));
        JsonNode t = total.get("memory").get(0);
        assertThat(t.get("shape").asText()).isEqualTo("growing");
        assertThat(t.get("basis").asText()).isEqualTo("card-total");
        assertThat(codes(total)).contains("unstable memory-growth");
    }

    @Test
    void theJobClimbingBesideAFlatSanitizerRunGrows() throws IOException {
        JsonNode r = analyze(runDir(
                "ours-grows",
                "ours-grows.card-handmade.csv",
                "ours-grows.apps-handmade.csv",
                "gpu-pids-handmade.txt",
                true));
        JsonNode m = r.get("memory").get(0);
        assertThat(m.get("shape").asText()).as(m.toString()).isEqualTo("growing");
        assertThat(m.get("peakMiB").asDouble())
                .as("the job's own peak, not the card's")
                .isEqualTo(14357);
        assertThat(m.get("basis").asText()).isEqualTo("per-process");
        assertThat(m.get("basisNote").asText()).contains("1 other process(es) on the card (up to 853 MiB together)");
        assertThat(codes(r)).contains("unstable memory-growth");
        assertThat(r.get("verdict").asText()).isEqualTo("UNSTABLE");
    }

    @Test
    void pidsThatAreNotTheJobsOnASharedCardAreNotJudged() throws IOException {
        JsonNode r = analyze(runDir(
                "container-beside",
                "other-grows.card-handmade.csv",
                "other-grows.apps-handmade.csv",
                "gpu-pids-container-handmade.txt",
                true));
        JsonNode m = r.get("memory").get(0);
        assertThat(m.get("shape").asText()).isEqualTo("unknown");
        assertThat(m.get("description").asText())
                .isEqualTo("not judged: card shared with the sanitizer run and no per-process figures (the job ran in"
                        + " a pid namespace of its own (pid:[4026532913], a container): nvidia-smi lists the host's"
                        + " pids, which are not the job's)");
        assertThat(m.get("basis").asText()).isEqualTo("card-total");
        assertThat(m.get("basisNote").asText()).startsWith("card total, not judged: memory.used of GPU 0");
        assertThat(m.get("points").size()).as("the card's curve is still drawn").isPositive();
        assertThat(codes(r)).contains("warning memory-not-judged").noneMatch(c -> c.contains("memory-growth"));
        assertThat(html("container-beside"))
                .contains("<li class=\"gs-basis\">Curve: card total, not judged: memory.used of GPU 0");
        assertThat(r.get("verdict").asText()).isEqualTo("PASS");
    }

    @Test
    void figuresNvidiaSmiCannotGiveOnASharedCardAreNotJudged() throws IOException {
        JsonNode m = analyze(runDir(
                        "mig-beside",
                        "other-grows.card-handmade.csv",
                        "mig.apps-handmade.csv",
                        "gpu-pids-handmade.txt",
                        true))
                .get("memory")
                .get(0);
        assertThat(m.get("shape").asText()).isEqualTo("unknown");
        assertThat(m.get("description").asText())
                .startsWith("not judged: card shared with the sanitizer run and no per-process figures")
                .contains("[N/A]");
    }

    @Test
    void aRunThatHadTheCardToItselfIsJudgedOnTheTotalWhenItsPidsAreNotTheJobs() throws IOException {
        JsonNode m = analyze(runDir(
                        "container-alone",
                        "ours-grows.card-handmade.csv",
                        "ours-grows.apps-handmade.csv",
                        "gpu-pids-container-handmade.txt",
                        false))
                .get("memory")
                .get(0);
        assertThat(m.get("shape").asText()).isEqualTo("growing");
        assertThat(m.get("basis").asText()).isEqualTo("card-total");
        assertThat(m.get("basisNote").asText())
                .startsWith("card total: memory.used of GPU 0, every process on the card (the regression run had the"
                        + " card to itself); the job ran in a pid namespace of its own");
    }

    @Test
    void onASharedCardWithoutPerProcessFiguresTheProbesAllocatorCurveIsJudged() throws IOException {
        // the H200 probe record's leak job (records/h200-probe.zip.xz, leak), as if it had run beside the sanitizer run
        Path run = dir.resolve("leak");
        Path record = Records.unpacked("h200-probe/leak");
        try (Stream<Path> files = Files.walk(record)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path to = run.resolve(record.relativize(f).toString());
                Files.createDirectories(to.getParent());
                Files.copy(f, to);
            }
        }
        ObjectNode record1 = (ObjectNode) JSON.readTree(run.resolve("run.json").toFile());
        record1.get("execution").get("phases").forEach(p -> {
            if ("regression".equals(p.get("name").asText())) {
                ((ObjectNode) p).put("ranBeside", true);
            }
        });
        JSON.writeValue(run.resolve("run.json").toFile(), record1);

        JsonNode m = analyze(run).get("memory").get(0);
        assertThat(m.get("basis").asText()).isEqualTo("probe-allocator");
        assertThat(m.get("basisNote").asText())
                .startsWith("probe allocator: the memory PyTorch's allocator reserved in the job's processes")
                .endsWith("the card was shared with the sanitizer run and no per-process samples were recorded");
        assertThat(m.get("shape").asText()).as(m.toString()).isEqualTo("growing");
    }
}
