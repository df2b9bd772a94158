package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CLI killed the way CI cancels a job: {@code gpu-sanitize run} in its own JVM, with stand-in GPU
 * tools and a job that hangs (its workers ignore SIGTERM), gets SIGTERM or SIGINT in the middle of a
 * phase. It must abort as a timeout does, write the report and exit with the signal's status, and
 * leave no process of the phase running. SIGKILL (the OOM killer, {@code kill -9}) leaves the CLI no
 * chance: the phase's supervisor notices that its owner is gone and ends the phase within seconds.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
@EnabledOnOs(OS.LINUX)
class StopSignalTest {
    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @ParameterizedTest
    @CsvSource({"TERM,143,blocking", "INT,130,blocking", "TERM,143,memcheck-app"})
    void aStopSignalAbortsWritesTheReportAndLeavesNoProcess(String signal, int exit, String hangIn) throws Exception {
        // the sanitizer's job hangs too: a clean sanitizer run would cut the blocking run beside it and the run
        // could end before the signal came (seen on a loaded machine: exit 0)
        FakeGpu gpu = new FakeGpu(dir).clean().hang(hangIn).hang("memcheck-app");
        Path out = dir.resolve("run");
        Process cli = start(gpu, out);
        String pidFile = hangIn.equals("blocking") ? "pid-blocking.txt" : "target-memcheck.txt";
        long job = waitForPid(gpu, pidFile);
        new ProcessBuilder("sh", "-c", "kill -" + signal + " " + cli.pid())
                .start()
                .waitFor();
        assertThat(cli.waitFor(300, TimeUnit.SECONDS)).as("the CLI ended").isTrue();
        String console = Files.readString(dir.resolve("console.txt"));
        assertThat(cli.exitValue()).as(console).isEqualTo(exit);
        assertThat(console).contains("stop signal: aborting the run");
        JsonNode report = CliRunner.json(out.resolve("report.json"));
        assertThat(report.get("verdict").asText()).isEqualTo("ERROR");
        assertThat(report.get("reasons").toString()).contains("aborted");
        assertThat(Processes.runningAfter(Duration.ofMinutes(1), job))
                .as("the job (pid " + job + ") outlived the CLI")
                .isEmpty();
        assertThat(alive(gpu.env().get("FAKE_LOG")))
                .as("processes of the run still alive")
                .isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"blocking,blocking", "memcheck-app,sanitizer-memcheck"})
    void afterSigkillOfTheCliThePhaseEndsWithinSecondsAndSaysWhy(String hangIn, String phaseDir) throws Exception {
        FakeGpu gpu = new FakeGpu(dir).clean().hang(hangIn);
        Path out = dir.resolve("run");
        Process cli = start(gpu, out);
        String pidFile = hangIn.equals("blocking") ? "pid-blocking.txt" : "target-memcheck.txt";
        long job = waitForPid(gpu, pidFile);
        new ProcessBuilder("kill", "-KILL", Long.toString(cli.pid())).start().waitFor();
        assertThat(cli.waitFor(60, TimeUnit.SECONDS)).as("the CLI died").isTrue();
        assertThat(cli.exitValue()).isEqualTo(137);
        Path status = out.resolve(phaseDir).resolve("exit.status");
        // the phase's own time limit is an hour off: an end within the wait is the supervisor's noticing
        assertThat(FileWait.all(Duration.ofMinutes(5), status))
                .as("the supervisor's record of how the phase ended")
                .isTrue();
        assertThat(Files.readString(status))
                .contains("status=aborted")
                .contains("its owner (gpu-sanitize, pid " + cli.pid() + ") is gone");
        assertThat(Processes.runningAfter(Duration.ofMinutes(1), job))
                .as("the job (pid " + job + ") outlived its supervisor")
                .isEmpty();
        assertThat(alive(gpu.env().get("FAKE_LOG")))
                .as("processes of the run still alive")
                .isEmpty();
        assertThat(out.resolve("report.json")).as("a killed CLI writes nothing").doesNotExist();
        assertThat(Files.readString(out.resolve("runner.lease")))
                .as("the run directory says whose the phases were")
                .contains("runner: pid " + cli.pid())
                .contains("end when it dies");
        // what is left reads as a run that did not finish, never as a pass
        CliRunner analysis = CliRunner.run(
                "analyze",
                "--run-dir",
                out.toString(),
                "--json",
                dir.resolve("a.json").toString());
        assertThat(CliRunner.json(dir.resolve("a.json")).get("verdict").asText())
                .as(analysis.out() + analysis.err())
                .isEqualTo("ERROR");
    }

    private Process start(FakeGpu gpu, Path out) throws IOException {
        Process cli = CliJvm.run(
                gpu, out, dir.resolve("console.txt"), List.of("--progress-interval", "1"), "python3", "train.py");
        started.add(cli);
        return cli;
    }

    /** A test that failed before its signal leaves no CLI running (its supervisors then end their phases). */
    @AfterEach
    void killLeftCli() {
        started.forEach(Process::destroyForcibly);
    }

    private static long waitForPid(FakeGpu gpu, String file) throws IOException, InterruptedException {
        String pids = FileWait.content(Path.of(gpu.env().get("FAKE_LOG"), file), Duration.ofMinutes(5));
        assertThat(pids).as(file + " never appeared").isNotEmpty();
        return Long.parseLong(pids.split("\\s+")[0]);
    }

    /** Every pid the fakes logged (jobs, their workers, the tool's target) that is still alive. */
    private static List<Long> alive(String logDir) throws Exception {
        List<Long> pids = new ArrayList<>();
        try (var files = Files.list(Path.of(logDir))) {
            for (Path f : files.filter(p -> p.getFileName().toString().matches("(pid|children|target)-.*\\.txt"))
                    .toList()) {
                for (String tok : Files.readString(f).trim().split("\\s+")) {
                    if (tok.matches("\\d+")) {
                        pids.add(Long.parseLong(tok));
                    }
                }
            }
        }
        return Processes.runningAfter(
                Duration.ofMinutes(1), pids.stream().mapToLong(Long::longValue).toArray());
    }
}
