package io.jenkins.plugins.gpusanitizer.engine.run.environment;

import java.util.List;

/**
 * What the probe found on the machine, and whether it fits together.
 *
 * @param compatibility {@code ok}, {@code warning} or {@code error}
 * @param messages      one line per finding, the fix included
 */
public record Environment(
        String driverVersion,
        String driverCudaVersion,
        List<Gpu> gpus,
        String nvccVersion,
        String pythonPath,
        String pythonVersion,
        String torchVersion,
        String torchCuda,
        String cudnnVersion,
        Boolean cudaAvailable,
        Boolean torchDsa,
        String computeSanitizerPath,
        String computeSanitizerVersion,
        String compatibility,
        List<String> messages) {
    public Environment {
        gpus = List.copyOf(gpus);
        messages = List.copyOf(messages);
    }

    public record Gpu(String index, String name, String uuid, Double memoryTotalMiB) {}
}
