package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/** One GPU memory curve of the report (docs/report-schema.md, memory curves). */
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
        String basisNote) {

    /**
     * The most GPU memory any curve of a report shows (MiB), or null where it has none: a reference build's need, an
     * upper bound of one run of its job (a curve of the whole card, drawn beside the other runs, counts them too).
     */
    public static Double largestPeakMiB(List<MemoryJson> memory) {
        return memory == null
                ? null
                : memory.stream()
                        .map(MemoryJson::peakMiB)
                        .filter(p -> p > 0)
                        .max(Double::compare)
                        .orElse(null);
    }
}
