package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import picocli.CommandLine;

/** The GPU lock options of {@code run} reach the spec; by default a run takes its GPUs and waits up to 6 h. */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class RunCommandGpuLockTest {
    @TempDir
    Path dir;

    private static RunSpec spec(String... args) {
        RunCommand run = new RunCommand();
        CommandLine cl = new CommandLine(run);
        cl.parseArgs(args);
        return run.toSpec(cl);
    }

    @Test
    void theLockIsOnByDefaultAndTheOptionsChangeIt() {
        RunSpec byDefault = spec("--", "python3", "train.py");
        assertThat(byDefault.gpuLock()).isTrue();
        assertThat(byDefault.gpuLockTimeoutSeconds()).isEqualTo(21600);
        RunSpec changed = spec("--no-gpu-lock", "--gpu-lock-timeout", "30", "--", "python3", "train.py");
        assertThat(changed.gpuLock()).isFalse();
        assertThat(changed.gpuLockTimeoutSeconds()).isEqualTo(30);
    }

    /**
     * GPU 0 locked by another process (this test's JVM, through the lock file alone, as any program could):
     * the CLI waits and ends with ERROR at the timeout; with --no-gpu-lock it runs regardless.
     */
    @Test
    void theCliWaitsForAGpuHeldElsewhereUnlessToldNotTo() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        Path locks = Path.of(gpu.env().get("GPU_SANITIZE_LOCK_DIR"));
        Files.createDirectories(locks);
        try (FileChannel channel = FileChannel.open(
                        // card 0 is locked by its UUID (the stand-in nvidia-smi's), whatever spelling selects it
                        locks.resolve("gpu-GPU-1a0444fb-6664-4e9d-d6a6-000000000000.lock"),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            Process waiting = cli(gpu, "locked", "--gpu-lock-timeout", "1");
            String console = Files.readString(dir.resolve("locked.txt"));
            assertThat(waiting.exitValue()).as(console).isEqualTo(ExitCodes.ERROR);
            assertThat(console).contains("GPU 0 is in use by another process").contains("waiting (up to 1 s more");
            assertThat(Files.readString(dir.resolve("locked/report.json")))
                    .contains("gpu-lock-timeout")
                    .doesNotContain("\"verdict\" : \"PASS\"");

            Process unlocked = cli(gpu, "unlocked", "--no-gpu-lock");
            String console2 = Files.readString(dir.resolve("unlocked.txt"));
            assertThat(unlocked.exitValue()).as(console2).isEqualTo(ExitCodes.FAIL);
            assertThat(console2).doesNotContain("is in use by").contains("blocking started");
        }
    }

    private Process cli(FakeGpu gpu, String out, String... options) throws Exception {
        Process p = CliJvm.run(
                gpu,
                dir.resolve(out),
                dir.resolve(out + ".txt"),
                List.of(options),
                "python3",
                "train.py",
                "--bug",
                "far");
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("the CLI ended").isTrue();
        return p;
    }
}
