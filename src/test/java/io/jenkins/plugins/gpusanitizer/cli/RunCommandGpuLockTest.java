package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The GPU lock options of {@code run} reach the spec; by default a run takes its GPUs and waits up to 6 h. */
class RunCommandGpuLockTest {
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
}
