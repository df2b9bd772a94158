package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue #26, 8: the job's grandchild started with {@code env -i} (no cookie) in a process group of its own, as a
 * launcher with job control starts it, survived SIGTERM, SIGINT and SIGKILL of the CLI: the kill reached the job's
 * process group, the sweep only the processes with the cookie. The phase's session is swept now: the grandchild is
 * gone, and the phase's record names it by pid and command line. A process with the same command line in another
 * session (another user's job on a shared machine) runs on.
 */
@EnabledOnOs(OS.LINUX)
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class StopSignalGrandchildTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"TERM,143", "INT,130", "KILL,137"})
    void aGrandchildWithoutTheCookieEndsWithThePhaseAndIsNamed(String signal, int exit) throws Exception {
        // the sanitizer's job hangs too, so that the blocking run is never cut and the run never ends before the signal
        FakeGpu gpu =
                new FakeGpu(dir).clean().hang("blocking").hang("memcheck-app").put("blocking.grandchild", "own-group");
        Process unrelated = new ProcessBuilder("setsid", "sh", "-c", "exec sleep 300").start();
        try {
            Path out = dir.resolve("run");
            Process cli = CliJvm.run(
                    gpu, out, dir.resolve("console.txt"), List.of("--progress-interval", "1"), "python3", "train.py");
            String logged = FileWait.content(
                    Path.of(gpu.env().get("FAKE_LOG")).resolve("grandchild-blocking.txt"), Duration.ofSeconds(120));
            assertThat(logged).as("the job started its grandchild").matches("\\d+");
            long grandchild = Long.parseLong(logged);

            new ProcessBuilder("kill", "-" + signal, Long.toString(cli.pid()))
                    .start()
                    .waitFor();

            assertThat(cli.waitFor(60, TimeUnit.SECONDS)).as("the CLI ended").isTrue();
            String console = Files.readString(dir.resolve("console.txt"));
            assertThat(cli.exitValue()).as(console).isEqualTo(exit);
            Path status = out.resolve("blocking").resolve("exit.status");
            assertThat(FileWait.all(Duration.ofSeconds(60), status))
                    .as("the blocking phase's supervisor wrote how it ended")
                    .isTrue();
            assertThat(Processes.awaitGone(grandchild, Duration.ofSeconds(10)))
                    .as("the grandchild " + grandchild + " outlived the phase")
                    .isTrue();
            String named = grandchild + " (sleep 300)";
            assertThat(Files.readString(status))
                    .contains("leftover process(es) of the phase killed: ")
                    .contains(named);
            if (!signal.equals("KILL")) {
                // a killed CLI writes no report: the phase's record above is what is left
                JsonNode report = CliRunner.json(out.resolve("report.json"));
                assertThat(blockingNote(report)).contains(named);
                assertThat(console).contains(named);
            }
            assertThat(Processes.running(unrelated.pid()))
                    .as("a process of another session with the same command line")
                    .isTrue();
        } finally {
            unrelated.destroyForcibly();
        }
    }

    private static String blockingNote(JsonNode report) {
        for (JsonNode phase : report.get("execution").get("phases")) {
            if (phase.get("name").asText().equals("blocking")) {
                return phase.get("note").asText();
            }
        }
        throw new AssertionError("no blocking phase in " + report.get("execution"));
    }
}
