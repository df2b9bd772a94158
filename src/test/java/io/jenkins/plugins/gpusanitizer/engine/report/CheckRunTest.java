package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import org.junit.jupiter.api.Test;

class CheckRunTest {
    @Test
    void failingRunAnnotatesTheUserLine() {
        CheckRun c = CheckRun.of(Corpus.analyzeRun("triton"), "GPU Sanitizer");
        assertThat(c.name()).isEqualTo("GPU Sanitizer");
        assertThat(c.conclusion()).isEqualTo("failure");
        assertThat(c.title()).isEqualTo("FAIL: 1 defect(s)");
        assertThat(c.annotations()).singleElement().satisfies(a -> {
            assertThat(a.path()).endsWith("triton_job.py");
            assertThat(a.line()).isEqualTo(26);
            assertThat(a.level()).isEqualTo("failure");
            assertThat(a.message()).contains("device line", "triton_job.py:20");
        });
        assertThat(c.summary())
                .startsWith("**FAIL**")
                .contains("scale\\_kernel")
                .doesNotContain("<");
    }

    @Test
    void withAReferenceOnlyNewDefectsAreAnnotated() {
        Report far = Corpus.analyzeRun("far");
        CheckRun same = CheckRun.of(ReferenceComparison.apply(far, far, "main #1", true), "GPU Sanitizer");
        assertThat(same.annotations()).isEmpty();
        assertThat(same.title())
                .isEqualTo(ReferenceComparison.apply(far, far, "main #1", true).verdict()
                        + ": 1 defect(s), 0 new, 0 fixed");
        CheckRun pass = CheckRun.of(Corpus.analyzeRun("clean"), "GPU Sanitizer");
        assertThat(pass.conclusion()).isEqualTo("success");
        assertThat(CheckRun.of(Corpus.analyzeRun("leak"), "x").conclusion()).isEqualTo("neutral");
    }
}
