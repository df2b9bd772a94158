package io.jenkins.plugins.gpusanitizer.engine.gate;

import java.util.Locale;

/**
 * One line of the gate's reasoning. {@code FAIL}, {@code ERROR} and {@code UNSTABLE} reasons decide
 * the verdict; {@code WARNING} and {@code INFO} explain what the verdict cannot see.
 */
public record Reason(Level level, String code, String message, String defect) {

    public Reason(Level level, String code, String message) {
        this(level, code, message, null);
    }

    /** The same reason, tied to the defect it is about (its fingerprint), so comparisons can find it. */
    public Reason about(String defectId) {
        return new Reason(level, code, message, defectId);
    }

    public enum Level {
        FAIL,
        ERROR,
        UNSTABLE,
        WARNING,
        INFO;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static Reason fail(String code, String message) {
        return new Reason(Level.FAIL, code, message);
    }

    public static Reason error(String code, String message) {
        return new Reason(Level.ERROR, code, message);
    }

    public static Reason unstable(String code, String message) {
        return new Reason(Level.UNSTABLE, code, message);
    }

    public static Reason warning(String code, String message) {
        return new Reason(Level.WARNING, code, message);
    }

    public static Reason info(String code, String message) {
        return new Reason(Level.INFO, code, message);
    }

    @Override
    public String toString() {
        return level.id() + ": " + message;
    }
}
