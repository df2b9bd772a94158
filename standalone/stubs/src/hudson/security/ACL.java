package hudson.security;

// Compile-only signature stub of hudson.security.ACL: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/security/ACL.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import org.springframework.security.core.Authentication;

public abstract class ACL {
    @NonNull
    public static ACLContext as2(@NonNull Authentication auth) {
        throw new RuntimeException("Stub!");
    }
}
