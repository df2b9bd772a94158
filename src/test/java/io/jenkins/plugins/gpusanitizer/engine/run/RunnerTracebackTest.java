package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.GeneratedCode;
import io.jenkins.plugins.gpusanitizer.engine.report.FailureJson;
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

/** What the runner does with what the job printed: a hang after a caught GPU error, torch.compile's code. */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class RunnerTracebackTest {
    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    private RunSpec spec() {
        return new RunSpec()
                .command(List.of("python3", "train.py"))
                .outDir(dir.resolve("run").toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .progressIntervalSeconds(1)
                .samplerIntervalMs(100)
                .phases(List.of(Phase.BLOCKING));
    }

    @Test
    void hangAfterACaughtGpuErrorSaysSo() throws IOException {
        FakeGpu gpu = new FakeGpu(dir)
                .put("blocking.stdout", Files.readString(Corpus.fixture("hang.stdout"), StandardCharsets.UTF_8))
                .put("blocking.hang", "");
        Report r = new Runner(spec().timeoutSeconds(Phase.BLOCKING, 2), gpu.env(), console::add).run();
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("timeout"))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .contains("timed out after")
                        .contains("printed a CUDA error (stdout line 3, 2 times)")
                        .contains("retrying after: CUDA error: an illegal memory access was encountered")
                        .contains("the hang followed a GPU fault"));
        FailureJson blocking = r.failures().stream()
                .filter(f -> f.phase().equals("blocking"))
                .findFirst()
                .orElseThrow();
        assertThat(blocking.errorClass()).isEqualTo("illegal-address");
        assertThat(blocking.messages()).singleElement().satisfies(m -> {
            assertThat(m.stream()).isEqualTo("stdout");
            assertThat(m.line()).isEqualTo(3);
        });
        assertThat(r.diagnosis().summary()).contains("blocking run hit a GPU fault");
        assertThat(r.diagnosis().notes())
                .anyMatch(n -> n.contains("printed a CUDA error outside any Python traceback"));
    }

    @Test
    void recordedHangSaysTheHangFollowedAGpuFault() throws IOException {
        // the H200 hang: the job printed the caught error on stdout and waited; killed at 25 s
        FakeGpu gpu = new FakeGpu(dir)
                .put(
                        "blocking.stdout",
                        Files.readString(Corpus.h200Dec03("hang-driver/blocking/stdout.log"), StandardCharsets.UTF_8))
                .put("blocking.hang", "");
        Report r = new Runner(spec().timeoutSeconds(Phase.BLOCKING, 2), gpu.env(), console::add).run();
        // before: ERROR with "timed out ... its output is partial" only
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("timeout"))
                .singleElement()
                .satisfies(x -> assertThat(x.message())
                        .contains("printed a CUDA error (stdout line 6)")
                        .contains("CUDA_ERROR_ILLEGAL_ADDRESS")
                        .contains("the hang followed a GPU fault (an illegal memory access was encountered)"));
    }

    @Test
    void generatedKernelNamedByTheBlockingRunIsKept() throws IOException {
        Path cache = Files.createDirectories(dir.resolve("tmp/torchinductor_ci/ug"));
        String kernelName = "cugbf3hkiezp6x2zyxhkx5p4wq3kcu6jd3qufwbbfyqm7n5vbvnsw.py";
        Path kernel = cache.resolve(kernelName);
        Files.writeString(kernel, "import triton\n# kernel source\n");
        // looks generated (Inductor's hashed name) but is not under a cache directory: not copied
        Path outside = Files.writeString(
                Files.createDirectories(dir.resolve("elsewhere/ab"))
                        .resolve("cabmmxq2vsa6a5cqj3nnsszg2ftl7vyg7w4dbhzk4a4fbmkyq7kdd.py"),
                "TOKEN = 1\n");
        String stderr = kernel
                + ":41: unknown: block: [0,0,0], thread: [0,0,0] Assertion `index out of bounds: 0 <= tmp4 < 64` failed.\n"
                + "Traceback (most recent call last):\n"
                + "  File \"/w/job.py\", line 48, in <module>\n"
                + "    out = cmodel(x)\n"
                + "  File \"" + outside + "\", line 1, in <module>\n"
                + "    TOKEN = 1\n"
                + "RuntimeError: Triton Error [CUDA]: device-side assert triggered\n";
        FakeGpu gpu = new FakeGpu(dir).put("blocking.stderr", stderr).put("blocking.exit", "1");
        new Runner(spec(), gpu.env(), console::add).run();
        Path generated = dir.resolve("run/blocking").resolve(GeneratedCode.DIR);
        assertThat(generated.resolve(kernelName)).hasContent("import triton\n# kernel source");
        assertThat(generated.resolve(GeneratedCode.INDEX)).content().contains(kernel + "\t" + kernelName);
        try (var files = Files.list(generated)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(kernelName, GeneratedCode.INDEX);
        }
        assertThat(console).anyMatch(l -> l.contains("kept 1 generated file(s)"));
    }
}
