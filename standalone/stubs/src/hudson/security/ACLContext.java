package hudson.security;

// Compile-only signature stub of hudson.security.ACLContext: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/security/ACLContext.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public class ACLContext implements AutoCloseable {
    private ACLContext() {} // core's constructor is package-private (ACL.as2 makes them)

    @Override
    public void close() {
        throw new RuntimeException("Stub!");
    }
}
