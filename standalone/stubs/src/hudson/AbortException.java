package hudson;

// Compile-only signature stub of hudson.AbortException: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/AbortException.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the constructors, which do what the real ones do. Never packaged (see ../README.md).

import java.io.IOException;

public class AbortException extends IOException {
    private static final long serialVersionUID = 1L;

    public AbortException() {}

    public AbortException(String message) {
        super(message);
    }
}
