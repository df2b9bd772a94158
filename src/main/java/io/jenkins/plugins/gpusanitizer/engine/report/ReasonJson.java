package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.annotation.JsonInclude;

/** {@code defect}: the fingerprint of the defect the reason is about, when it is about one. */
public record ReasonJson(
        String level,
        String code,
        String message,
        @JsonInclude(JsonInclude.Include.NON_NULL) String defect) {
    public ReasonJson(String level, String code, String message) {
        this(level, code, message, null);
    }
}
