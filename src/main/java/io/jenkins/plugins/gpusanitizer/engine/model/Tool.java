package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.Locale;
import java.util.Optional;

/** The compute-sanitizer tools the gate knows; one tool per sanitizer run. */
public enum Tool {
    MEMCHECK,
    RACECHECK,
    INITCHECK,
    SYNCCHECK;

    /** Computed once: fingerprints ask for it on every record. */
    private final String id = name().toLowerCase(Locale.ROOT);

    /** The name compute-sanitizer uses on its command line ({@code --tool memcheck}). */
    public String id() {
        return id;
    }

    public static Optional<Tool> fromId(String id) {
        for (Tool tool : values()) {
            if (tool.id().equalsIgnoreCase(id.trim())) {
                return Optional.of(tool);
            }
        }
        return Optional.empty();
    }
}
