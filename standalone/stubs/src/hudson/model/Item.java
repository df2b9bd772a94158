package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import hudson.security.AccessControlled;
import hudson.security.Permission;

public interface Item extends AccessControlled {
    Permission CONFIGURE = new Permission();

    String getFullName();
}
