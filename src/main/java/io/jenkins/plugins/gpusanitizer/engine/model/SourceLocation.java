package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.Objects;

/**
 * A line of source code: a device line ({@code oob.cu:10}) or a host/Python frame
 * ({@code buggy_scale in train_lstm.py:32}). {@code function} and {@code code} may be null.
 */
public record SourceLocation(String file, int line, String function, String code) {
    public SourceLocation {
        Objects.requireNonNull(file, "file");
    }

    public static SourceLocation of(String file, int line, String function) {
        return new SourceLocation(file, line, function, null);
    }

    /** The file name without folders: compute-sanitizer's text output strips paths, its XML does not. */
    public String baseName() {
        return Frame.baseName(file);
    }

    /** Same file (by base name) and line: how locations from the text and the XML are compared. */
    public boolean sameLine(SourceLocation other) {
        return other != null && line == other.line && baseName().equals(other.baseName());
    }

    /** By its base name; {@link WorkPaths#at} names a file of the job by its path under the working directory. */
    @Override
    public String toString() {
        return baseName() + ":" + line + (function == null ? "" : " (" + function + ")");
    }
}
