package io.jenkins.plugins.gpusanitizer.engine.report;

/** A CUDA error message printed outside any traceback. */
public record CudaMessageJson(String stream, long line, Integer rank, String text, String errorClass, long count) {}
