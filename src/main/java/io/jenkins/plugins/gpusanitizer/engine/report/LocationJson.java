package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.annotation.JsonInclude;

/** {@code file}, {@code line}; {@code function} and {@code code} only when known. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LocationJson(String file, int line, String function, String code) {}
