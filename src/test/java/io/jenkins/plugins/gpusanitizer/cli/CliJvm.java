package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code gpu-sanitize run} in a JVM of its own, with the stand-in GPU tools' environment only: for what an
 * in-process run cannot show (signals, a killed CLI, a lock held by another process).
 */
final class CliJvm {
    private CliJvm() {}

    /** Starts {@code run --out OUT} with short kill graces, the options, then {@code -- JOB...}; output to CONSOLE. */
    static Process run(FakeGpu gpu, Path out, Path console, List<String> options, String... job) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
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
        cmd.addAll(options);
        cmd.add("--");
        cmd.addAll(List.of(job));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.redirectOutput(console.toFile());
        pb.environment().clear();
        pb.environment().putAll(gpu.env());
        return pb.start();
    }
}
