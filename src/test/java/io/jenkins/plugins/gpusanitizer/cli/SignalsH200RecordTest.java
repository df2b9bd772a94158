package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI signalled on the real H200 in the middle of a phase (records/h200-signals.zip.xz, made by
 * examples/h200/capture-signals.sh): a torchrun/DDP job with DataLoader workers, under the real
 * compute-sanitizer in the sanitizer phase. What the capture measured is read back from its files and
 * checked against what the run directories say.
 */
class SignalsH200RecordTest {
    static final Path RECORD = Records.unpacked("h200-signals");
    private static final Pattern LINE = Pattern.compile("(\\S+) exit=(\\d+) exit_seconds=([\\d.]+) "
            + "processes_before=(\\d+) gone_after_s=(-?\\d+) report=\"([^\"]*)\" phase=\"([^\"]*)\"");

    @TempDir
    Path dir;

    record Case(String name, int exit, double exitSeconds, int processesBefore, int goneAfter) {}

    /** The second capture (2026-12-04, script with job control): SIGINT during blocking, SIGKILL during regression. */
    static final Path RERUN = RECORD.resolve("rerun-2026-12-04");

    private static Map<String, Case> cases() throws IOException {
        return cases(RECORD);
    }

    private static Map<String, Case> cases(Path record) throws IOException {
        Map<String, Case> cases = new LinkedHashMap<>();
        for (String line : Files.readAllLines(record.resolve("signals.txt"))) {
            Matcher m = LINE.matcher(line);
            if (m.lookingAt()) {
                cases.put(
                        m.group(1),
                        new Case(
                                m.group(1),
                                Integer.parseInt(m.group(2)),
                                Double.parseDouble(m.group(3)),
                                Integer.parseInt(m.group(4)),
                                Integer.parseInt(m.group(5))));
            }
        }
        return cases;
    }

    @Test
    void sigtermAbortsWritesTheReportAndLeavesNothingOnTheGpu() throws Exception {
        Map<String, Case> cases = cases();
        for (String name : List.of("TERM-sanitizer", "TERM-regression")) {
            Case c = cases.get(name);
            assertThat(c).as(name + " recorded").isNotNull();
            assertThat(c.exit()).as(name).isEqualTo(143);
            assertThat(c.processesBefore())
                    .as(name + ": torchrun, its worker (and the tool)")
                    .isGreaterThanOrEqualTo(2);
            assertThat(c.goneAfter())
                    .as(name + ": seconds until no phase process and no GPU app")
                    .isZero();
            JsonNode report = CliRunner.json(RECORD.resolve(name).resolve("report.json"));
            assertThat(report.get("verdict").asText()).isEqualTo("ERROR");
            assertThat(report.get("reasons").findValuesAsText("code")).contains("aborted");
        }
        // the kill order: the target first, then compute-sanitizer gets its write grace, and its files are whole
        assertThat(RECORD.resolve("TERM-sanitizer/sanitizer-memcheck/exit.status"))
                .content()
                .contains("status=aborted")
                .contains("compute-sanitizer finished writing after the target was stopped");
        assertThat(RECORD.resolve("TERM-sanitizer/sanitizer-memcheck/sanitizer.log"))
                .content()
                .contains("========= ERROR SUMMARY: ");
    }

    @Test
    void sigintDuringTheBlockingRunAbortsLikeCtrlC() throws Exception {
        Case c = cases(RERUN).get("INT-blocking");
        assertThat(c).as("INT-blocking recorded").isNotNull();
        assertThat(c.exit()).as("128 + SIGINT").isEqualTo(130);
        assertThat(c.exitSeconds()).isLessThan(10);
        assertThat(c.processesBefore()).isGreaterThanOrEqualTo(2);
        assertThat(c.goneAfter()).isZero();
        JsonNode report = CliRunner.json(RERUN.resolve("INT-blocking/report.json"));
        assertThat(report.get("verdict").asText()).isEqualTo("ERROR");
        assertThat(report.get("reasons").findValuesAsText("code")).contains("aborted");
        assertThat(RERUN.resolve("INT-blocking/blocking/exit.status")).content().contains("status=aborted");
    }

    @Test
    void afterSigkillOfTheCliTheSupervisorEndsThePhaseWithinSeconds() throws Exception {
        Map<String, Case> cases = new LinkedHashMap<>(cases());
        cases.put("KILL-regression", cases(RERUN).get("KILL-regression"));
        for (String[] c : new String[][] {
            {"KILL-sanitizer", "sanitizer-memcheck"}, {"KILL-blocking", "blocking"}, {"KILL-regression", "regression"}
        }) {
            Case kill = cases.get(c[0]);
            assertThat(kill).as(c[0] + " recorded").isNotNull();
            assertThat(kill.exit()).isEqualTo(137);
            assertThat(kill.goneAfter())
                    .as(c[0] + ": seconds until nothing of the phase ran")
                    .isBetween(0, 10);
            Path run = (c[0].equals("KILL-regression") ? RERUN : RECORD).resolve(c[0]);
            assertThat(run.resolve("report.json")).doesNotExist();
            String owner = Files.readAllLines(run.resolve(c[1]).resolve("supervisor.conf")).stream()
                    .filter(l -> l.startsWith("OWNER_PID="))
                    .findFirst()
                    .orElseThrow()
                    .replaceAll("\\D", "");
            assertThat(run.resolve(c[1]).resolve("exit.status"))
                    .content()
                    .contains("status=aborted")
                    .contains("its owner (gpu-sanitize, pid " + owner + ") is gone");
            Path json = dir.resolve(c[0] + ".json");
            CliRunner analysis = CliRunner.run("analyze", "--run-dir", run.toString(), "--json", json.toString());
            assertThat(CliRunner.json(json).get("verdict").asText())
                    .as("what a killed CLI left reads as unfinished, never as a pass: " + analysis.out())
                    .isEqualTo("ERROR");
        }
    }

    @Test
    void everyCaseEndedWithNoPhaseProcessAndNoGpuApp() throws Exception {
        try (var files = Files.walk(RECORD, 2)) {
            List<Path> watches = files.filter(p -> p.toString().endsWith(".watch.txt"))
                    .sorted()
                    .toList();
            assertThat(watches).hasSizeGreaterThanOrEqualTo(7);
            for (Path watch : watches) {
                List<String> lines = Files.readAllLines(watch);
                assertThat(lines.get(0))
                        .as(watch + ": the phase was running on the GPU")
                        .doesNotContain("GPU apps: ;");
                assertThat(lines.get(lines.size() - 1))
                        .as(watch.toString())
                        .endsWith("phase processes: none; GPU apps: none");
            }
        }
        assertThat(RECORD.resolve("signals.txt")).content().contains("GPU apps now: ; phase processes now: ");
        assertThat(RERUN.resolve("signals.txt")).content().contains("GPU apps now: ; phase processes now: ");
    }

    @Test
    void aRunDirectoryDeletedUnderARunningPhaseOnTheH200StopsItsJobAtOnce() throws Exception {
        // not a signal: `rm -rf` of the run directory in the middle of the sanitizer and the regression phase
        Path record = Records.unpacked("h200-2026-12-04-verify/signals-lost-directory");
        Map<String, Case> cases = cases(record);
        for (String name : List.of("RM-sanitizer", "RM-regression")) {
            Case c = cases.get(name);
            assertThat(c).as(name + " recorded").isNotNull();
            assertThat(c.exit()).as(name + ": ERROR's exit code").isEqualTo(3);
            assertThat(c.exitSeconds()).isLessThan(10);
            assertThat(c.processesBefore())
                    .as(name + ": torchrun, its worker, its loaders")
                    .isGreaterThanOrEqualTo(3);
            assertThat(c.goneAfter())
                    .as(name + ": seconds until no phase process and no GPU app")
                    .isZero();
            JsonNode report = CliRunner.json(record.resolve(name).resolve("report.json"));
            assertThat(report.get("verdict").asText()).isEqualTo("ERROR");
            assertThat(report.get("reasons").findValuesAsText("code")).contains("runner", "no-evidence");
        }
    }
}
