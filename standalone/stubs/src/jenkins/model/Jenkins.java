package jenkins.model;

// Compile-only signature stub of jenkins.model.Jenkins: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/jenkins/model/Jenkins.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.security.AccessControlled;
import hudson.security.Permission;

public class Jenkins implements AccessControlled {
    public static final Permission ADMINISTER = null; // core: Permission.HUDSON_ADMINISTER

    private Jenkins() {} // core's constructor takes the home directory and the servlet context

    @NonNull
    public static Jenkins get() throws IllegalStateException {
        throw new RuntimeException("Stub!");
    }
}
