package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CLI killed the way CI cancels a job: {@code gpu-sanitize run} in its own JVM, with stand-in GPU
 * tools and a job that hangs (its workers ignore SIGTERM), gets SIGTERM or SIGINT in the middle of a
 * phase. It must abort as a timeout does, write the report and exit with the signal's status, and
 * leave no process of the phase running.
 */
@EnabledOnOs(OS.LINUX)
class StopSignalTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"TERM,143,blocking", "INT,130,blocking", "TERM,143,memcheck-app"})
    void aStopSignalAbortsWritesTheReportAndLeavesNoProcess(String signal, int exit, String hangIn) throws Exception {
        FakeGpu gpu = new FakeGpu(dir).clean().hang(hangIn);
        Path out = dir.resolve("run");
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                GpuSanitizeCli.class.getName(),
                "run",
                "--out",
                out.toString(),
                "--kill-grace",
                "1",
                "--tool-write-grace",
                "3",
                "--progress-interval",
                "1",
                "--",
                "python3",
                "train.py"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.redirectOutput(dir.resolve("console.txt").toFile());
        pb.environment().clear();
        pb.environment().putAll(gpu.env());
        Process cli = pb.start();
        String pidFile = hangIn.equals("blocking") ? "pid-blocking.txt" : "target-memcheck.txt";
        long job = waitForPid(gpu, pidFile);
        new ProcessBuilder("sh", "-c", "kill -" + signal + " " + cli.pid())
                .start()
                .waitFor();
        assertThat(cli.waitFor(60, TimeUnit.SECONDS)).as("the CLI ended").isTrue();
        String console = Files.readString(dir.resolve("console.txt"));
        assertThat(cli.exitValue()).as(console).isEqualTo(exit);
        assertThat(console).contains("stop signal: aborting the run");
        JsonNode report = CliRunner.json(out.resolve("report.json"));
        assertThat(report.get("verdict").asText()).isEqualTo("ERROR");
        assertThat(report.get("reasons").toString()).contains("aborted");
        Thread.sleep(300);
        assertThat(Processes.running(job))
                .as("the job (pid " + job + ") outlived the CLI")
                .isFalse();
        assertThat(alive(gpu.env().get("FAKE_LOG")))
                .as("processes of the run still alive")
                .isEmpty();
    }

    private static long waitForPid(FakeGpu gpu, String file) throws InterruptedException {
        for (int i = 0; i < 800; i++) {
            String s = gpu.logged(file).trim();
            if (!s.isEmpty()) {
                return Long.parseLong(s.split("\\s+")[0]);
            }
            Thread.sleep(25);
        }
        throw new AssertionError(file + " never appeared");
    }

    /** Every pid the fakes logged (jobs, their workers, the tool's target) that is still alive. */
    private static List<Long> alive(String logDir) throws Exception {
        List<Long> pids = new ArrayList<>();
        try (var files = Files.list(Path.of(logDir))) {
            for (Path f : files.filter(p -> p.getFileName().toString().matches("(pid|children|target)-.*\\.txt"))
                    .toList()) {
                for (String tok : Files.readString(f).trim().split("\\s+")) {
                    if (tok.matches("\\d+") && Processes.running(Long.parseLong(tok))) {
                        pids.add(Long.parseLong(tok));
                    }
                }
            }
        }
        return pids;
    }
}
