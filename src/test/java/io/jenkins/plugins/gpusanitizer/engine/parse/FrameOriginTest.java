package io.jenkins.plugins.gpusanitizer.engine.parse;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import org.junit.jupiter.api.Test;

class FrameOriginTest {
    @Test
    void aFrameOfAnyOfTheProbesModulesIsNeverTheUsers() {
        assertThat(RunLayout.PROBE_MODULES).contains("gpu_sanitize_probe.py", "gpu_sanitize_blocking.py");
        for (String module : RunLayout.PROBE_MODULES) {
            assertThat(FrameOrigin.isUserFile("/ci/run/probe/" + module))
                    .as(module)
                    .isFalse();
            assertThat(FrameOrigin.isUserFile("C:\\ci\\run\\probe\\" + module))
                    .as(module)
                    .isFalse();
        }
    }

    @Test
    void aUserFileNamedLikeTheProbeIsStillTheUsers() {
        assertThat(FrameOrigin.isUserFile("/home/me/gpu_sanitize_probe_test.py"))
                .isTrue();
        assertThat(FrameOrigin.isUserFile("/home/me/my_gpu_sanitize_probe.py")).isTrue();
        assertThat(FrameOrigin.isUserFile("/home/me/sitecustomize.py")).isTrue();
    }
}
