package io.jenkins.plugins.gpusanitizer.results;

import static org.assertj.core.api.Assertions.assertThat;

import hudson.model.Result;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import org.junit.jupiter.api.Test;

class VerdictResultTest {
    private static AgentSummary summary(Verdict verdict, String reason) {
        return AgentSummary.builder()
                .verdict(verdict)
                .defects(verdict == Verdict.FAIL ? 1 : 0)
                .errorsTotal(1603L)
                .firstReason(reason)
                .diagnosis("s")
                .reportedAt("train_lstm.py:99")
                .faultAt("train_lstm.py:32 (buggy_scale)")
                .runDirectory("/r")
                .defectsByTool(java.util.Map.of("memcheck", 1))
                .build();
    }

    @Test
    void passLeavesTheBuildAlone() {
        VerdictResult v = VerdictResult.of(summary(Verdict.PASS, null), "GPU Sanitizer");
        assertThat(v.result()).isSameAs(Result.SUCCESS);
        assertThat(v.abort()).isFalse();
    }

    @Test
    void unstableMarksWithoutAborting() {
        VerdictResult v =
                VerdictResult.of(summary(Verdict.UNSTABLE, "GPU 0 memory grows 70000 MiB/min"), "GPU Sanitizer");
        assertThat(v.result()).isSameAs(Result.UNSTABLE);
        assertThat(v.abort()).isFalse();
        assertThat(v.message()).isEqualTo("GPU Sanitizer: UNSTABLE: GPU 0 memory grows 70000 MiB/min");
    }

    @Test
    void failAbortsWithTheRealLineAndTheBlamedOne() {
        VerdictResult v =
                VerdictResult.of(summary(Verdict.FAIL, "memcheck: Invalid __global__ write"), "GPU Sanitizer");
        assertThat(v.result()).isSameAs(Result.FAILURE);
        assertThat(v.abort()).isTrue();
        assertThat(v.message())
                .isEqualTo("GPU Sanitizer: FAIL: 1 GPU defect(s) at train_lstm.py:32 (buggy_scale) "
                        + "(reported at train_lstm.py:99); memcheck: Invalid __global__ write")
                .doesNotContain("\n");
    }

    @Test
    void errorIsAFailureThatNamesTheToolProblem() {
        VerdictResult v = VerdictResult.of(summary(Verdict.ERROR, "no GPU: nvidia-smi failed"), "GPU Sanitizer");
        assertThat(v.result()).isSameAs(Result.FAILURE);
        assertThat(v.abort()).isTrue();
        assertThat(v.message()).contains("ERROR", "no GPU: nvidia-smi failed");
    }
}
