package io.jenkins.plugins.gpusanitizer.engine.run.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * No phase runs on with nobody following it. A supervisor whose run directory is deleted under it (a workspace
 * cleanup while the build runs) or cannot be written stops its phase instead of vanishing (under dash, a failed
 * redirection of {@code :} ended the supervisor and left the job running); a runner that fails while following a
 * phase stops it first.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class SupervisorLostDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void theJobIsStoppedWhenTheRunDirectoryDisappears() throws Exception {
        Path run = dir.resolve("run");
        Path supervisor = PhaseScript.installSupervisor(run);
        Path phase = Files.createDirectories(run.resolve("phase"));
        Path pidFile = dir.resolve("job.pid");
        PhaseScript.writePhase(
                phase, null, Map.of(), List.of(), List.of("sh", "-c", "echo $$ > " + pidFile + "; exec sleep 1000"));
        PhaseScript.writeConf(
                phase,
                new PhaseSettings(600, null, false, 1, 1, Processes.cookie("lost-dir-test"), false)
                        .conf(PhaseProcess.Owner.thisJvm()));
        // /bin/sh, as the runner starts it: dash on Debian and Ubuntu, where the bug was
        Process sh = new ProcessBuilder("/bin/sh", supervisor.toString(), phase.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("supervisor.out").toFile())
                .start();
        long job = Long.parseLong(FileWait.content(pidFile, Duration.ofMinutes(5)));
        assertThat(Processes.running(job)).isTrue();

        deleteTree(run);

        assertThat(sh.waitFor(60, TimeUnit.SECONDS)).as("the supervisor ends").isTrue();
        assertThat(Processes.running(job)).as("and its job with it").isFalse();
    }

    @Test
    void aRunnerThatFailsWhileFollowingAPhaseStopsIt() throws Exception {
        Path run = dir.resolve("run");
        Path supervisor = PhaseScript.installSupervisor(run);
        Path phase = Files.createDirectories(run.resolve("phase"));
        Path pidFile = dir.resolve("job.pid");
        RunLease lease = new RunLease(run, false);
        lease.take();
        PhaseProcess process = new PhaseProcess(
                new LocalProcessStarter(),
                supervisor,
                phase,
                Map.of("PATH", "/usr/bin:/bin"),
                null,
                PhaseProcess.Owner.thisJvm(),
                lease);
        long begin = System.nanoTime();
        assertThatThrownBy(() -> process.run(
                        new PhaseSettings(600, null, false, 1, 1, Processes.cookie("failing-runner-test"), false),
                        1,
                        elapsed -> {},
                        () -> {
                            if (Files.exists(pidFile)) {
                                throw new IllegalStateException("a stop check with a bug");
                            }
                            return null;
                        },
                        List.of("sh", "-c", "echo $$ > " + pidFile + "; exec sleep 1000"),
                        Map.of(),
                        List.of()))
                .hasMessageContaining("a stop check with a bug");
        long job = Long.parseLong(Files.readString(pidFile).trim());
        assertThat(Processes.running(job))
                .as("the phase was stopped before the failure went on")
                .isFalse();
        assertThat(phase.resolve("exit.status")).content().contains("status=aborted");
        assertThat((System.nanoTime() - begin) / 1e9).isLessThan(30);
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
