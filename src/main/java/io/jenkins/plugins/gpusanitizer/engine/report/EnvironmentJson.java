package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

public record EnvironmentJson(
        String driverVersion,
        String driverCudaVersion,
        List<GpuJson> gpus,
        String nvccVersion,
        String torchVersion,
        String torchCuda,
        String cudnnVersion,
        Boolean torchDsa,
        String computeSanitizerVersion,
        String compatibility,
        List<String> messages) {}
