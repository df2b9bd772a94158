package hudson.util;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

public abstract class FormValidation extends Exception {
    public static FormValidation ok() {
        throw new UnsupportedOperationException();
    }

    public static FormValidation ok(String message) {
        throw new UnsupportedOperationException();
    }

    public static FormValidation warning(String message) {
        throw new UnsupportedOperationException();
    }

    public static FormValidation error(String message) {
        throw new UnsupportedOperationException();
    }
}
