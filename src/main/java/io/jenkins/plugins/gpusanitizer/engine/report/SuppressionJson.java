package io.jenkins.plugins.gpusanitizer.engine.report;

public record SuppressionJson(String rule, String reason) {}
