package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.annotation.JsonInclude;

@JsonInclude(JsonInclude.Include.NON_NULL)
public record FrameJson(String function, String file, Integer line, String module, boolean python, String role) {}
