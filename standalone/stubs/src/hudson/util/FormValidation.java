package hudson.util;

// Compile-only signature stub of hudson.util.FormValidation: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/util/FormValidation.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import java.io.IOException;
import org.kohsuke.stapler.HttpResponse;

public abstract class FormValidation extends IOException implements HttpResponse {
    // the real constructors are private: instances come from the static factories
    private FormValidation() {}

    public static FormValidation error(String message) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation error(Throwable e, String message) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation warning(Throwable e, String message) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation error(String format, Object... args) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation error(Throwable e, String format, Object... args) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation warning(String format, Object... args) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation warning(Throwable e, String format, Object... args) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation ok(String format, Object... args) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation warning(String message) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation ok(String message) {
        throw new RuntimeException("Stub!");
    }

    public static FormValidation ok() {
        throw new RuntimeException("Stub!");
    }
}
