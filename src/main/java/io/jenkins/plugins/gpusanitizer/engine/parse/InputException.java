package io.jenkins.plugins.gpusanitizer.engine.parse;

import java.nio.file.Path;

/** Unreadable or malformed input: carries the one-line message shown to the user (file + problem). */
public class InputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InputException(Path file, String problem) {
        super(file + ": " + problem);
    }

    public InputException(Path file, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
    }
}
