package hudson.model;

// Compile-only signature stub of hudson.model.ParameterValue: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/ParameterValue.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import java.io.Serializable;

public abstract class ParameterValue implements Serializable {
    private static final long serialVersionUID = 1L;

    protected ParameterValue(String name) {
        throw new RuntimeException("Stub!");
    }

    public final String getName() {
        throw new RuntimeException("Stub!");
    }

    public boolean isSensitive() {
        throw new RuntimeException("Stub!");
    }
}
