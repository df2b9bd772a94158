package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The rerun with the caching allocator kept, after the uncached memcheck run broke the job's CUDA graph capture:
 * what the first run found is judged too (the rerun cannot see small out-of-bounds accesses), and only a job that
 * died of the broken capture is run again.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class CaptureRerunTest {
    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    private Report run(FakeGpu gpu) {
        return new Runner(FakeGpu.farOobSpec(dir.resolve("run")), gpu.env(), console::add).run();
    }

    /** The H200's small out-of-bounds write (seen only uncached), then the H200's broken capture, in one log. */
    private static String oobThenBrokenCapture() throws IOException {
        List<String> near = Files.readAllLines(Corpus.file("near-oob/memcheck-nocache.log"), StandardCharsets.UTF_8);
        int next = near.subList(2, near.size()).indexOf(near.get(1)) + 2;
        List<String> capture = Files.readAllLines(
                Corpus.resource("/corpus/h200-2026-12-03/cudagraph/memcheck-uncached.log"), StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>(near.subList(0, next)); // the banner and one write record
        out.addAll(capture.subList(1, capture.size() - 1));
        out.add("========= ERROR SUMMARY: 5 errors");
        return String.join("\n", out) + "\n";
    }

    @Test
    void anOutOfBoundsWriteTheUncachedRunSawBeforeTheCaptureBrokeIsJudged() throws IOException {
        FakeGpu gpu = new FakeGpu(dir).cudaGraphCapture().put("memcheck-uncached.log", oobThenBrokenCapture());
        Report r = run(gpu);

        assertThat(RunnerTest.phase(r, "sanitizer-memcheck-cached").status())
                .as("the job is still checked past the capture")
                .isEqualTo("passed");
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.FAIL);
        assertThat(r.defects()).filteredOn(d -> !d.suppressed()).singleElement().satisfies(d -> {
            assertThat(d.kernel()).isEqualTo("scale_shift");
            assertThat(d.hostLocation().line()).isEqualTo(32);
        });
        assertThat(r.defects())
                .as("the capture errors are the gate's own doing")
                .filteredOn(d -> d.suppressed())
                .allSatisfy(d -> assertThat(d.suppressedBy().rule()).isEqualTo("capture-under-uncached-allocator"));
        assertThat(r.reasons())
                .noneMatch(x -> x.code().equals("capture-conflict") && x.level().equalsIgnoreCase("error"));
    }

    @Test
    void theCaptureErrorsWordsInTheJobsOutputAreNoBrokenCapture() {
        // a job that only prints the words (a log line, a test of its own error handling) and ends well
        String words =
                "retrying: cudaErrorStreamCaptureUnsupported (operation not permitted when stream is capturing)\n";
        FakeGpu gpu = new FakeGpu(dir)
                .clean()
                .put("memcheck-app.stdout", words)
                .put("memcheck-app.stderr", "warning: " + words);
        Report r = run(gpu);

        assertThat(r.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons()).noneMatch(x -> x.code().equals("caching-allocator"));
    }
}
