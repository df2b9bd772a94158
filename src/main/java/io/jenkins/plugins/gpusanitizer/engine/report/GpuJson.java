package io.jenkins.plugins.gpusanitizer.engine.report;

public record GpuJson(String index, String name, String uuid, Double memoryTotalMiB) {}
