package io.jenkins.plugins.gpusanitizer.engine.report;

public record AssertionJson(
        String file, int line, String function, String condition, long count, String firstBlock, String firstThread) {}
