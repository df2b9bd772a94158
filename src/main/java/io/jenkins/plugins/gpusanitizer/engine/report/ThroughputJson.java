package io.jenkins.plugins.gpusanitizer.engine.report;

/** {@code tolerance}: the accepted drop below the baseline (null in records written before it was kept). */
public record ThroughputJson(
        String regex, Double baseline, Double measured, Double ratio, int samples, Double tolerance) {}
