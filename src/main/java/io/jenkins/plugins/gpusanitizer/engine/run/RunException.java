package io.jenkins.plugins.gpusanitizer.engine.run;

/** A run cannot start or go on (missing tool, no GPU, bad option): the message is one line for the user. */
public class RunException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RunException(String message) {
        super(message);
    }

    public RunException(String message, Throwable cause) {
        super(message, cause);
    }
}
