package io.jenkins.plugins.gpusanitizer.engine.report;

/** How a memory curve was judged: growth acts when it would fill the GPU within the horizon. */
public record MemoryPolicyJson(double minJudgedSeconds, double fillHorizonHours) {}
