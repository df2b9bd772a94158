package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * Live GPU memory by Python allocation site (the probe, regression phase): the top sites at the end
 * (or at the out-of-memory) against the first sample after warm-up.
 */
public record AllocationSitesJson(
        String phase,
        long pid,
        String rank,
        Double warmupSeconds,
        double endSeconds,
        String endAt,
        long allocatedBytesAtWarmup,
        long allocatedBytesAtEnd,
        long reservedBytesAtEnd,
        int samples,
        boolean growing,
        String summary,
        List<AllocationSiteJson> sites,
        List<SiteSeriesJson> series,
        OomSitesJson oom) {}
