package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading a capture-gpu-minutes.sh record of the H200: its run directories, gate times and consoles. */
final class GateRecords {
    private GateRecords() {}

    /** A run directory of the record analysed again, its JSON report written under {@code tmp}. */
    static JsonNode analyze(Path record, String run, Path tmp) {
        Path json = tmp.resolve(run + ".json");
        CliRunner r = CliRunner.run("analyze", "--run-dir", record.resolve(run).toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 1);
        return CliRunner.json(json);
    }

    /** Unsuppressed defects as tool, kind, kernel and launch line, sorted. */
    static List<String> findings(JsonNode report) {
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
    static Map<String, Double> gateSeconds(Path record) throws IOException {
        Map<String, Double> seconds = new TreeMap<>();
        Pattern line = Pattern.compile("(\\S+) exit=\\d+ seconds=([\\d.]+)");
        for (String l : Files.readAllLines(record.resolve("summary.txt"))) {
            Matcher m = line.matcher(l);
            if (m.matches()) {
                seconds.put(m.group(1), Double.parseDouble(m.group(2)));
            }
        }
        return seconds;
    }

    /** The index of the first console line that starts with one of these (after the CLI's prefix). */
    static int lineOf(List<String> console, String... starts) {
        for (int i = 0; i < console.size(); i++) {
            for (String start : starts) {
                if (console.get(i).startsWith("[gpu-sanitize] " + start)) {
                    return i;
                }
            }
        }
        throw new AssertionError("no line starting with " + List.of(starts) + " in " + console);
    }
}
