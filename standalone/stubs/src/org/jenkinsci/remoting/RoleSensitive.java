package org.jenkinsci.remoting;

// Compile-only signature stub of org.jenkinsci.remoting.RoleSensitive: jenkinsci/remoting, tag 3355.v388858a_47b_33
// (the remoting of jenkins-core 2.555.3),
// src/main/java/org/jenkinsci/remoting/RoleSensitive.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public interface RoleSensitive {
    void checkRoles(RoleChecker checker) throws SecurityException;
}
