package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

public record ProbePhaseJson(
        String phase,
        String file,
        String status,
        int processes,
        long records,
        double probeSeconds,
        Long watchedCalls,
        Long samples,
        List<String> errors) {}
