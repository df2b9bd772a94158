package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.engine.run.ProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.Runner;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command {@link LauncherStarter} hands to the build's launcher, run for real with {@code sh}: it
 * returns at once (the launcher's {@code join()} must not wait for the phase) and the supervisor it
 * leaves behind runs the phase to its end on its own, followed through the run directory only. The
 * launcher itself is Jenkins' (not available here): a starter runs the same argv with ProcessBuilder
 * and joins it, as {@code launch().cmds(...).join()} does.
 */
class LauncherStarterTest {
    @TempDir
    Path dir;

    /** What the launcher would run, joined as {@code ProcStarter.join()} joins it. */
    private static final class JoiningStarter implements ProcessStarter {
        final List<Double> joinSeconds = new ArrayList<>();

        @Override
        public void start(String script, String directory, Map<String, String> env, String workDir)
                throws IOException, InterruptedException {
            ProcessBuilder builder = new ProcessBuilder(LauncherStarter.command(script, directory));
            builder.environment().clear();
            builder.environment().putAll(env);
            if (workDir != null) {
                builder.directory(new File(workDir));
            }
            long begin = System.nanoTime();
            Process process = builder.redirectErrorStream(true).start();
            process.getInputStream().readAllBytes(); // as the launcher copies its output: ends when sh's does
            assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
            joinSeconds.add((System.nanoTime() - begin) / 1e9);
            if (process.exitValue() != 0) {
                throw new IOException("exit " + process.exitValue());
            }
        }

        @Override
        public String describe() {
            return "the launcher's command";
        }
    }

    @Test
    void theLaunchReturnsAtOnceAndTheDetachedSupervisorsRunTheWholeRun() {
        FakeGpu gpu = new FakeGpu(dir).farOob().put("blocking.sleep", "2");
        RunSpec spec = new RunSpec()
                .command(List.of("python3", "train.py", "--bug", "far"))
                .outDir(dir.resolve("run").toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .samplerIntervalMs(100);
        JoiningStarter starter = new JoiningStarter();
        List<String> console = new ArrayList<>();

        Report report = new Runner(spec, gpu.env(), console::add, starter, true).run();

        assertThat(report.verdict()).as(String.join("\n", console)).isEqualTo("FAIL");
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(report.execution().phases()).hasSize(3);
        assertThat(starter.joinSeconds)
                .as("each launch returned before its phase ended (the blocking job alone takes 2 s)")
                .isNotEmpty()
                .allSatisfy(seconds -> assertThat(seconds).isLessThan(1.5));
        assertThat(dir.resolve("run/blocking/supervisor.log")).exists();
        assertThat(dir.resolve("run/blocking/supervisor.conf"))
                .content()
                .as("detached: no owner whose death would end the phase")
                .contains("OWNER_PID=''");
    }

    @Test
    void theCommandPassesPathsAsArgumentsNeverAsShellText() {
        List<String> command = LauncherStarter.command("/ws@tmp/it's/bin/supervise.sh", "/ws@tmp/$(rm -rf ~)/blocking");
        assertThat(command)
                .containsExactly(
                        "sh",
                        "-c",
                        LauncherStarter.DETACH,
                        "/ws@tmp/it's/bin/supervise.sh",
                        "/ws@tmp/$(rm -rf ~)/blocking");
    }

    @Test
    void aPathWithShellCharactersStartsAsGiven() throws Exception {
        Path odd = Files.createDirectories(dir.resolve("it's $(x) dir"));
        Path script = odd.resolve("supervise.sh");
        Files.writeString(script, "echo \"started in $1\" > \"$1/proof.txt\"\n");
        new JoiningStarter().start(script.toString(), odd.toString(), Map.of("PATH", "/usr/bin:/bin"), null);
        Path proof = odd.resolve("proof.txt");
        for (int i = 0; i < 100 && !Files.exists(proof); i++) {
            Thread.sleep(20);
        }
        assertThat(proof).content().isEqualTo("started in " + odd + "\n");
    }
}
