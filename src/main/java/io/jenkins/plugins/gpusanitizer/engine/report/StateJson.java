package io.jenkins.plugins.gpusanitizer.engine.report;

/** A file a run's process opened outside its copy of the working directory ({@code read} or {@code write}). */
public record StateJson(String event, String path, String where) {}
