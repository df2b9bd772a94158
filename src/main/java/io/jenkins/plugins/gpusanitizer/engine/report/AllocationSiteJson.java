package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

public record AllocationSiteJson(
        LocationJson site,
        List<LocationJson> stack,
        long bytesAtWarmup,
        long blocksAtWarmup,
        long bytesAtEnd,
        long blocksAtEnd,
        long growthBytes) {}
