package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

public record MemoryJson(
        String source,
        String label,
        String gpu,
        String shape,
        double peakMiB,
        double baselineMiB,
        double warmupSeconds,
        double growthMiBPerMin,
        double durationSeconds,
        int samples,
        String description,
        List<double[]> points,
        Double judgedFromSeconds,
        Double judgedToSeconds,
        Double trendMiBPerMin,
        Double memoryTotalMiB,
        Double hoursToFull,
        Double lateRiseMiB,
        MemoryPolicyJson policy,
        AllocationSitesJson allocationSites,
        String basis,
        String basisNote) {}
