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
 * The gate's wall time on one GPU with the sanitizer and blocking runs started beside the environment check
 * (docs/h200-gpu-minutes-env, examples/h200/capture-gpu-minutes.sh on the H200 with the jar of commit 1b5febf):
 * issue #15's goal, at most 1.1x the sanitizer phase plus the regression phase, read from the record, and the
 * findings of every example job, analysed again here.
 */
class GateBesideCheckH200RecordTest {
    static final Path RECORD = ProbeH200RecordTest.ROOT.resolve("docs").resolve("h200-gpu-minutes-env");

    @TempDir
    Path dir;

    private JsonNode analyze(String run) {
        Path json = dir.resolve(run + ".json");
        CliRunner r = CliRunner.run("analyze", "--run-dir", RECORD.resolve(run).toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 1);
        return CliRunner.json(json);
    }

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

    /** The gate's wall time as the capture measured it (start of the CLI to its exit), by run. */
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

    private static int lineOf(List<String> console, String start) {
        for (int i = 0; i < console.size(); i++) {
            if (console.get(i).startsWith("[gpu-sanitize] " + start)) {
                return i;
            }
        }
        throw new AssertionError("no line starting with " + start + " in " + console);
    }

    @ParameterizedTest
    @CsvSource({
        "ddp-clean,PASS,",
        "ddp-scatter,FAIL,memcheck device-assert __assertfail 82",
        "triton-stride,FAIL,memcheck out-of-bounds row_scale_bias_kernel 51"
    })
    void theGateCostsAtMostATenthMoreThanSanitizerPlusRegression(String job, String verdict, String defect)
            throws Exception {
        JsonNode beside = analyze(job + "-beside");
        assertThat(beside.get("verdict").asText()).isEqualTo(verdict);
        assertThat(findings(beside)).containsExactlyElementsOf(defect == null ? List.of() : List.of(defect));
        assertThat(beside.path("execution")
                        .path("environment")
                        .path("compatibility")
                        .asText())
                .isEqualTo("ok");

        List<String> console = Files.readAllLines(RECORD.resolve(job + "-beside.console.txt"));
        int answer = lineOf(console, "environment: ");
        assertThat(lineOf(console, "sanitizer-memcheck started"))
                .as("the sanitizer run started before the environment check answered")
                .isLessThan(answer);
        assertThat(lineOf(console, "blocking started"))
                .as("the blocking run too")
                .isLessThan(answer);
        assertThat(console).noneMatch(l -> l.contains("run again with the answer's settings"));

        double sanitizerPlusRegression = 0;
        for (JsonNode phase : beside.path("execution").path("phases")) {
            String name = phase.path("name").asText();
            if (name.startsWith("sanitizer") || name.equals("regression")) {
                sanitizerPlusRegression += phase.path("wallSeconds").asDouble();
            }
        }
        double gate = gateSeconds().get(job + "-beside");
        assertThat(gate / sanitizerPlusRegression)
                .as("gate %.2f s over sanitizer + regression %.2f s", gate, sanitizerPlusRegression)
                .isLessThanOrEqualTo(1.1);
    }

    @ParameterizedTest
    @CsvSource({"ddp-clean", "triton-stride"})
    void oneAfterTheOtherFindsTheSameButCostsMore(String job) throws Exception {
        JsonNode beside = analyze(job + "-beside");
        JsonNode after = analyze(job + "-after");
        assertThat(after.get("verdict").asText())
                .isEqualTo(beside.get("verdict").asText());
        assertThat(findings(after)).isEqualTo(findings(beside));
        assertThat(after.path("diagnosis").path("faultAt").path("line").asInt())
                .isEqualTo(beside.path("diagnosis").path("faultAt").path("line").asInt());
        List<String> console = Files.readAllLines(RECORD.resolve(job + "-after.console.txt"));
        assertThat(lineOf(console, "environment: "))
                .as("--no-overlap: the check answers before any phase")
                .isLessThan(lineOf(console, "sanitizer-memcheck started"));
        Map<String, Double> seconds = gateSeconds();
        assertThat(seconds.get(job + "-beside")).isLessThan(seconds.get(job + "-after"));
    }
}
