package hudson;

// Compile-only signature stub of hudson.EnvVars: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/EnvVars.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the constructors, a case-insensitive map as the real one (Windows-style keys are not needed).
// Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import java.util.Map;
import java.util.TreeMap;

public class EnvVars extends TreeMap<String, String> {
    public EnvVars() {
        super(String.CASE_INSENSITIVE_ORDER);
    }

    public EnvVars(@NonNull Map<String, String> m) {
        this();
        putAll(m);
    }

    public EnvVars(@NonNull EnvVars m) {
        this((Map<String, String>) m);
    }

    public EnvVars(String... keyValuePairs) {
        this();
        for (int i = 0; i < keyValuePairs.length; i += 2) {
            put(keyValuePairs[i], keyValuePairs[i + 1]);
        }
    }

    public void override(String key, String value) {
        throw new RuntimeException("Stub!");
    }

    public EnvVars overrideAll(Map<String, String> all) {
        throw new RuntimeException("Stub!");
    }

    public String expand(String s) {
        throw new RuntimeException("Stub!");
    }
}
