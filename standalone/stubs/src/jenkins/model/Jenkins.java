package jenkins.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import hudson.security.AccessControlled;
import hudson.security.Permission;

public abstract class Jenkins implements AccessControlled {
    public static final Permission ADMINISTER = new Permission();

    public static Jenkins get() {
        throw new UnsupportedOperationException();
    }
}
