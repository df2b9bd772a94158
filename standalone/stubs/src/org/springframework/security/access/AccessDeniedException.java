package org.springframework.security.access;

// Compile-only signature stub of org.springframework.security.access.AccessDeniedException:
// spring-projects/spring-security, tag 6.5.9 (the spring-security-bom of jenkins-core 2.555.3),
// core/src/main/java/org/springframework/security/access/AccessDeniedException.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the constructors, which do what the real ones do. Never packaged (see ../README.md).

public class AccessDeniedException extends RuntimeException {
    public AccessDeniedException(String msg) {
        super(msg);
    }

    public AccessDeniedException(String msg, Throwable cause) {
        super(msg, cause);
    }
}
