package hudson;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import java.util.Map;
import java.util.TreeMap;

public class EnvVars extends TreeMap<String, String> {
    public EnvVars() {}

    public EnvVars(Map<String, String> m) {
        throw new UnsupportedOperationException();
    }

    public void override(String key, String value) {
        throw new UnsupportedOperationException();
    }

    public String expand(String s) {
        throw new UnsupportedOperationException();
    }
}
