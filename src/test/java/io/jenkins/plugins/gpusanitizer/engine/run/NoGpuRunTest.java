package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue #25, 10: a clean job whose torch, under compute-sanitizer only, could not initialise CUDA
 * (bad-inputs/cuda-init-failed.stderr, torch's own warning) and trained on the CPU: memcheck counted 0
 * errors and the gate passed. The job's output is the sanitizer phase's stderr.log, beside the tool's
 * log.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class NoGpuRunTest {
    @TempDir
    Path dir;

    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    private static String warning() throws IOException {
        try (InputStream in = NoGpuRunTest.class.getResourceAsStream("/bad-inputs/cuda-init-failed.stderr")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aSanitizerRunWhoseJobSawNoGpuIsAnErrorAndTheBlockingRunIsNotCut() throws IOException {
        FakeGpu gpu = new FakeGpu(dir)
                .clean()
                .put("memcheck-app.stderr", warning())
                .put("memcheck-app.sleep", "0.5")
                .put("blocking.sleep", "3");

        Report r = new Runner(FakeGpu.farOobSpec(dir.resolve("run")), gpu.env(), console::add).run();

        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("no-gpu"))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .startsWith("sanitizer-memcheck: torch could not initialise CUDA (CUDA initialization: "
                                + "Unexpected error from cudaGetDeviceCount()")
                        .endsWith("and the job ran without the GPU: memcheck checked nothing; "
                                + "see sanitizer-memcheck/stderr.log"));
        // a run that checked nothing is no reason to cut the blocking run beside it
        assertThat(RunnerTest.phase(r, "blocking").status()).isEqualTo(PhaseResult.PASSED);
    }

    @Test
    void theSameCleanJobWithTheGpuPasses() {
        FakeGpu gpu = new FakeGpu(dir).clean();
        Report r = new Runner(FakeGpu.farOobSpec(dir.resolve("run")), gpu.env(), console::add).run();
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons()).noneMatch(x -> x.code().equals("no-gpu"));
    }
}
