package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import org.junit.jupiter.api.Test;

/** Issue #13, 3: the step's gpuLock and gpuLockTimeout reach the run; the lock is on by default. */
class StepGpuLockTest {
    @Test
    void theLockIsOnByDefaultAndTheStepChangesIt() {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py");
        RunSpec byDefault = RunSpecMapping.toSpec(step, "/o");
        assertThat(byDefault.gpuLock()).isTrue();
        assertThat(byDefault.gpuLockTimeoutSeconds()).isEqualTo(21600);
        step.setGpuLock(false);
        step.setGpuLockTimeout(60);
        RunSpec changed = RunSpecMapping.toSpec(step, "/o");
        assertThat(changed.gpuLock()).isFalse();
        assertThat(changed.gpuLockTimeoutSeconds()).isEqualTo(60);
    }

    @Test
    void aNegativeTimeoutIsRefused() {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py");
        step.setGpuLockTimeout(-1);
        assertThatThrownBy(() -> RunSpecMapping.toSpec(step, "/o"))
                .hasMessage("GPU lock timeout must be 0 (do not wait) or more seconds, got -1");
    }
}
