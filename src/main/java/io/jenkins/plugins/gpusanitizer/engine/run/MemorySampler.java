package io.jenkins.plugins.gpusanitizer.engine.run;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One nvidia-smi process sampling GPU memory into a CSV beside the regression run. */
final class MemorySampler {
    private final Process process;
    private final long started = System.nanoTime();

    private MemorySampler(Process process) {
        this.process = process;
    }

    static MemorySampler start(Path nvidiaSmi, String gpu, int intervalMs, Path csv, Path log, Map<String, String> env)
            throws IOException {
        ProcessBuilder pb = new ProcessBuilder(List.of(
                        nvidiaSmi.toString(),
                        "--query-gpu=timestamp,index,memory.used,memory.total,utilization.gpu",
                        "--format=csv,nounits",
                        "-lms",
                        Integer.toString(intervalMs),
                        "-i",
                        gpu))
                .redirectOutput(csv.toFile())
                .redirectError(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env);
        return new MemorySampler(pb.start());
    }

    /** Stops the sampler; returns a note when it had died before (its curve ends early), else null. */
    String stop() {
        if (!process.isAlive()) {
            return "memory sampler exited early (code " + process.exitValue() + "): the curve is partial";
        }
        process.destroy();
        try {
            if (!process.waitFor(3, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(3, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        return null;
    }

    double ranSeconds() {
        return (System.nanoTime() - started) / 1e9;
    }
}
