package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * How the run was made ({@code gpu-sanitize run}); null for {@code analyze}.
 *
 * @param environment  probed versions and the compatibility verdict
 * @param phases       one entry per phase, in the order run
 * @param runDirectory the run directory, relative paths below are inside it
 * @param workDirectory the absolute working directory the phases ran in (the Jenkins workspace, the
 *     checkout root): check annotations are given relative to it; null in records written before it was kept
 */
public record ExecutionJson(
        EnvironmentJson environment,
        List<PhaseJson> phases,
        String runDirectory,
        Double referenceFailureSeconds,
        String referenceSource,
        Double regressionTargetSeconds,
        ThroughputJson throughput,
        String workDirectory) {}
