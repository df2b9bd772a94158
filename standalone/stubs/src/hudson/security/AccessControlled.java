package hudson.security;

// Compile-only signature stub of hudson.security.AccessControlled: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/security/AccessControlled.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: getACL() is left out. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import org.springframework.security.access.AccessDeniedException;

public interface AccessControlled {
    default void checkPermission(@NonNull Permission permission) throws AccessDeniedException {
        throw new RuntimeException("Stub!");
    }

    default boolean hasPermission(@NonNull Permission permission) {
        throw new RuntimeException("Stub!");
    }
}
