package io.jenkins.plugins.gpusanitizer.engine.report;

public record OomJson(
        long triedBytes,
        String gpu,
        long totalBytes,
        long freeBytes,
        long allocatedByPyTorchBytes,
        long reservedUnallocatedBytes) {}
