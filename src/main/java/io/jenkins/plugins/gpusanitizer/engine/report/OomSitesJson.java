package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/** Where the allocation that ran out of memory was made, and what held the memory then. */
public record OomSitesJson(
        long pid,
        String rank,
        double seconds,
        LocationJson site,
        List<LocationJson> stack,
        long requestedBytes,
        long deviceFreeBytes,
        String snapshotFile,
        Long snapshotBytes,
        List<AllocationSiteJson> sites,
        String summary) {}
