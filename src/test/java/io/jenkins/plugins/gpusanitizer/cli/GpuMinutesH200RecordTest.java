package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the gate costs on one GPU (docs/h200-gpu-minutes, made by examples/h200/capture-gpu-minutes.sh):
 * each example job gated twice on the H200, the blocking run beside the sanitizer run (the default) and
 * after it ({@code --no-overlap}). Both run directories are analysed again here: they must give the same
 * findings, the blocking run must really have run beside the sanitizer run in one and after it in the
 * other, and beside must have cost less wall time.
 */
class GpuMinutesH200RecordTest {
    static final Path RECORD = ProbeH200RecordTest.ROOT.resolve("docs").resolve("h200-gpu-minutes");

    @TempDir
    Path dir;

    private JsonNode analyze(String run) {
        Path json = dir.resolve(run + ".json");
        CliRunner r = CliRunner.run("analyze", "--run-dir", RECORD.resolve(run).toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 1);
        return CliRunner.json(json);
    }

    /** Unsuppressed defects as tool, kind, kernel and launch line, sorted. */
    private static List<String> findings(JsonNode report) {
        List<String> found = new ArrayList<>();
        for (JsonNode d : report.get("defects")) {
            if (!d.path("suppressed").asBoolean()) {
                found.add(d.path("tool").asText() + " " + d.path("kind").asText() + " "
                        + d.path("kernel").asText() + " "
                        + d.path("hostLocation").path("line").asText());
            }
        }
        found.sort(null);
        return found;
    }

    private static Map<String, Double> gateSeconds() throws Exception {
        Map<String, Double> seconds = new TreeMap<>();
        Pattern line = Pattern.compile("(\\S+) exit=\\d+ seconds=([\\d.]+)");
        for (String l : Files.readAllLines(RECORD.resolve("summary.txt"))) {
            Matcher m = line.matcher(l);
            if (m.matches()) {
                seconds.put(m.group(1), Double.parseDouble(m.group(2)));
            }
        }
        return seconds;
    }

    private static int lineOf(List<String> console, String... starts) {
        for (int i = 0; i < console.size(); i++) {
            for (String start : starts) {
                if (console.get(i).startsWith("[gpu-sanitize] " + start)) {
                    return i;
                }
            }
        }
        throw new AssertionError("no line starting with " + List.of(starts) + " in " + console);
    }

    @ParameterizedTest
    @CsvSource({
        "ddp-clean,PASS,",
        "ddp-scatter,FAIL,memcheck device-assert __assertfail 82",
        "triton-stride,FAIL,memcheck out-of-bounds row_scale_bias_kernel 51"
    })
    void besideGivesTheSameFindingsInLessTime(String job, String verdict, String defect) throws Exception {
        JsonNode beside = analyze(job + "-beside");
        JsonNode after = analyze(job + "-after");
        assertThat(beside.get("verdict").asText())
                .isEqualTo(after.get("verdict").asText())
                .isEqualTo(verdict);
        assertThat(findings(beside))
                .isEqualTo(findings(after))
                .containsExactlyElementsOf(defect == null ? List.of() : List.of(defect));
        assertThat(beside.path("diagnosis").path("faultAt").path("line").asInt())
                .isEqualTo(after.path("diagnosis").path("faultAt").path("line").asInt());

        List<String> besideConsole = Files.readAllLines(RECORD.resolve(job + "-beside.console.txt"));
        assertThat(lineOf(besideConsole, "blocking started"))
                .as("beside: the blocking run starts before the sanitizer run ends")
                .isLessThan(lineOf(besideConsole, "sanitizer-memcheck failed after"));
        List<String> afterConsole = Files.readAllLines(RECORD.resolve(job + "-after.console.txt"));
        assertThat(lineOf(afterConsole, "blocking started"))
                .as("after: the blocking run starts once the sanitizer run ended")
                .isGreaterThan(lineOf(afterConsole, "sanitizer-memcheck failed after"));
        for (List<String> console : List.of(besideConsole, afterConsole)) {
            assertThat(lineOf(console, "regression started"))
                    .as("the regression run, whose memory curve is judged, runs alone")
                    .isGreaterThan(lineOf(console, "blocking passed after", "blocking failed after"));
        }

        Map<String, Double> seconds = gateSeconds();
        assertThat(seconds.get(job + "-beside")).isLessThan(seconds.get(job + "-after"));
    }
}
