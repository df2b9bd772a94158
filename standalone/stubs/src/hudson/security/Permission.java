package hudson.security;

// Compile-only signature stub of hudson.security.Permission: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/security/Permission.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public final class Permission {
    private Permission() {} // core's constructors take a permission group, an id and a description
}
