package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.testing.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The CLI in a JVM of its own: {@code gpu-sanitize run} with the stand-in GPU tools' environment only, for what an
 * in-process run cannot show (signals, a killed CLI, a lock held by another process); {@code analyze} under a
 * heap limit of its own.
 */
final class CliJvm {
    private CliJvm() {}

    /** Starts {@code run --out OUT} with short kill graces, the options, then {@code -- JOB...}; output to CONSOLE. */
    static Process run(FakeGpu gpu, Path out, Path console, List<String> options, String... job) throws IOException {
        return run(gpu, java.util.Map.of(), out, console, options, job);
    }

    /** The same, with {@code env} added to the stand-in tools' environment (a CI's variables). */
    static Process run(
            FakeGpu gpu, java.util.Map<String, String> env, Path out, Path console, List<String> options, String... job)
            throws IOException {
        List<String> cmd = ChildJvm.java();
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                GpuSanitizeCli.class.getName(),
                "run",
                "--out",
                out.toString(),
                "--kill-grace",
                "1",
                "--tool-write-grace",
                "3"));
        if (!options.contains("--workdir")) {
            // each run copies its working directory: a small one of the test's own, not the build's folder
            Path work = java.nio.file.Files.createDirectories(out.resolveSibling(out.getFileName() + "-workspace"));
            cmd.addAll(List.of("--workdir", work.toString()));
        }
        cmd.addAll(options);
        cmd.add("--");
        cmd.addAll(List.of(job));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.redirectOutput(console.toFile());
        pb.environment().clear();
        pb.environment().putAll(gpu.env());
        pb.environment().putAll(env);
        return pb.start();
    }

    /** What a CLI that ran to its end printed (stdout and stderr) and its exit code. */
    record Ended(int exit, String out) {}

    /** {@code analyze ARGS...} with {@code -Xmx<heap>}; waits at most 300 s for it. */
    static Ended analyze(String heap, String... args) throws IOException, InterruptedException {
        List<String> cmd = ChildJvm.java();
        cmd.addAll(List.of(
                "-Xmx" + heap,
                "-cp",
                System.getProperty("java.class.path"),
                GpuSanitizeCli.class.getName(),
                "analyze"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("analyze did not end within 300 s: " + out);
        }
        return new Ended(p.exitValue(), out);
    }
}
