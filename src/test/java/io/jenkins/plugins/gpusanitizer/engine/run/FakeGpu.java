package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * A machine with stand-in GPU tools (test resources fake-tools/) replaying a corpus case through
 * real processes. See fake-tools/README.md for what the files of a case mean.
 */
public final class FakeGpu {
    final Path tools;
    final Path caseDir;
    final Path log;
    final Path root;

    public FakeGpu(Path dir) {
        this.root = dir;
        this.tools = dir.resolve("bin");
        this.caseDir = dir.resolve("case");
        this.log = dir.resolve("log");
        try {
            Files.createDirectories(tools);
            Files.createDirectories(caseDir);
            Files.createDirectories(log);
            for (String t : List.of("nvidia-smi", "compute-sanitizer", "nvcc", "python3")) {
                try (InputStream in = FakeGpu.class.getResourceAsStream("/fake-tools/" + t)) {
                    Path p = tools.resolve(t);
                    Files.copy(in, p, StandardCopyOption.REPLACE_EXISTING);
                    p.toFile().setExecutable(true);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The job's environment: fakes first on PATH, nothing of the real machine's CUDA. */
    /** A spec for the fake far-out-of-bounds job with short graces: the usual run of the runner's tests. */
    static RunSpec farOobSpec(Path out) {
        return spec(out, "python3", "train.py", "--bug", "far");
    }

    /** A run of {@code command} into {@code out} with the stand-ins' short graces and a fast sampler. */
    static RunSpec spec(Path out, String... command) {
        return new RunSpec()
                .command(List.of(command))
                .outDir(out.toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .samplerIntervalMs(100);
    }

    public Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", tools + ":/usr/bin:/bin");
        env.put("HOME", root.toString());
        // the recorded environment answers (env/ of corpus/h200, unpacked from corpus/h200.zip.xz)
        env.put(
                "FAKE_CORPUS",
                Corpus.file("env/nvidia-smi.txt").getParent().getParent().toString());
        env.put("FAKE_CASE", caseDir.toString());
        env.put("FAKE_LOG", log.toString());
        // each test its own GPU locks: tests that run at once must not wait for each other's GPU 0
        env.put("GPU_SANITIZE_LOCK_DIR", root.resolve("gpu-locks").toString());
        return env;
    }

    FakeGpu copy(String corpusFile, String as) {
        try {
            Files.copy(Corpus.file(corpusFile), caseDir.resolve(as), StandardCopyOption.REPLACE_EXISTING);
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public FakeGpu put(String name, String content) {
        Corpus.write(caseDir, name, content);
        return this;
    }

    /** The phase's job ({@code memcheck-app}, {@code blocking}, {@code async}) never ends by itself. */
    public FakeGpu hang(String mode) {
        return put(mode + ".hang", "");
    }

    /**
     * The jobs of these modes wait at gates ({@code MODE.gate}) that open only once all of them wait at the same
     * time: proof that they run at once, whatever the machine's load (no wall-clock ratio). The answer: whether they
     * did (false when the gates were opened after a minute regardless, so that the run still ends).
     */
    CompletableFuture<Boolean> gatesOpenTogether(String... modes) {
        for (String mode : modes) {
            put(mode + ".gate", "");
        }
        CompletableFuture<Boolean> together = new CompletableFuture<>();
        // a thread of its own: a pool's thread blocked here could hold up other tests' waits
        Thread opener = new Thread(
                () -> {
                    try {
                        together.complete(FileWait.all(
                                Duration.ofMinutes(5),
                                Stream.of(modes)
                                        .map(m -> log.resolve("gated-" + m + ".txt"))
                                        .toArray(Path[]::new)));
                    } catch (IOException | RuntimeException e) {
                        together.completeExceptionally(e);
                    } catch (InterruptedException e) {
                        together.complete(false);
                    } finally {
                        for (String mode : modes) {
                            put(mode + ".open", "");
                        }
                    }
                },
                "gates-" + String.join("-", modes));
        opener.setDaemon(true);
        opener.start();
        return together;
    }

    FakeGpu remove(String tool) {
        try {
            Files.delete(tools.resolve(tool));
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String logged(String name) {
        try {
            return Files.readString(log.resolve(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** The far out-of-bounds job as recorded on the H200, phase by phase. */
    public FakeGpu farOob() {
        return copy("far-oob/memcheck.log", "memcheck.log")
                .copy("far-oob/memcheck.xml", "memcheck.xml")
                .copy("far-oob/memcheck-app.stderr", "memcheck-app.stderr")
                .put("memcheck-app.exit", "1")
                .copy("far-oob/blocking.stderr", "blocking.stderr")
                .put("blocking.exit", "1")
                .put("blocking.sleep", "0.4")
                .copy("far-oob/async.stderr", "async.stderr")
                .put("async.exit", "1")
                .put("async.sleep", "0.3")
                .copy("curves/clean.nvidia-smi.csv", "curve.csv");
    }

    /** memcheck's output of a job without a bug. */
    static String cleanMemcheckLog() {
        return Corpus.textRun("mc-clean-exit").replace("sync -> 0 no error\n", "");
    }

    /** A job without a bug: clean memcheck output, normal runs finish. */
    public FakeGpu clean() {
        return put("memcheck.log", cleanMemcheckLog())
                .copy("near-oob/async.stdout", "async.stdout")
                .copy("near-oob/async.stdout", "blocking.stdout")
                .copy("near-oob/async.stdout", "memcheck-app.stdout")
                .copy("curves/clean.nvidia-smi.csv", "curve.csv")
                .put("async.sleep", "2");
    }

    /**
     * A correct job that captures its training step in a CUDA graph (examples/cudagraph_job.py): clean with
     * the caching allocator; under PYTORCH_NO_CUDA_MEMORY_CACHING=1 the capture breaks and the job dies, as
     * recorded on the H200 (records/h200-2026-12-03.zip.xz, cudagraph).
     */
    public FakeGpu cudaGraphCapture() {
        Path rec = Corpus.h200Dec03("cudagraph/memcheck-uncached.log");
        return clean().copyFile(rec, "memcheck-uncached.log")
                .copyFile(rec.resolveSibling("memcheck-app-uncached.stderr"), "memcheck-app-uncached.stderr")
                .put("memcheck-app-uncached.exit", "1");
    }

    /** A file of the case taken away (e.g. the XML a tool would save). */
    FakeGpu drop(String name) {
        try {
            Files.deleteIfExists(caseDir.resolve(name));
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    FakeGpu putFile(Path file, String as) {
        return copyFile(file, as);
    }

    private FakeGpu copyFile(Path file, String as) {
        try {
            Files.copy(file, caseDir.resolve(as), StandardCopyOption.REPLACE_EXISTING);
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
