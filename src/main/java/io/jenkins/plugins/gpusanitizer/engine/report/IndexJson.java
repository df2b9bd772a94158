package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/** The index (or label) tensor against the size it indexes into; min/max null when not readable. */
public record IndexJson(
        String name,
        String dtype,
        List<Long> shape,
        Long min,
        Long max,
        Long size,
        String of,
        String unit,
        Long ignoreIndex,
        Boolean outOfRange,
        String statsFrom) {}
