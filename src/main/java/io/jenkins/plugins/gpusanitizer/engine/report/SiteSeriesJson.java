package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/** One site's live memory over time: [seconds since the process started, MiB]. */
public record SiteSeriesJson(String site, List<double[]> points) {}
