package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue #25, 10: torch's "CUDA initialization" warning in the forms Python and C++ print it. */
class CudaUnavailableTest {
    @Test
    void pythonsUserWarningWithoutTorchsSourceLocation() {
        assertThat(
                        CudaUnavailable.warning(
                                "/usr/lib/python3/site-packages/torch/cuda/__init__.py:129: UserWarning: "
                                        + "CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). "
                                        + "Please update your GPU driver. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)"))
                .isEqualTo("CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). "
                        + "Please update your GPU driver.");
    }

    @Test
    void cppWarningAndRankPrefixes() {
        assertThat(CudaUnavailable.warning("[rank1]: [W1204 10:00:00.000 CUDAFunctions.cpp:109] Warning: CUDA "
                        + "initialization: Found no NVIDIA driver on your system. (function operator())"))
                .isEqualTo("CUDA initialization: Found no NVIDIA driver on your system. (function operator())");
    }

    @Test
    void theJobsOwnWordsAreNotTorchsWarning() {
        assertThat(CudaUnavailable.warning("CUDA initialization: done in 0.4 s"))
                .isNull();
        assertThat(CudaUnavailable.warning("step 10 loss 0.25")).isNull();
    }
}
