package hudson.security;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

public interface AccessControlled {
    default void checkPermission(Permission permission) {
        throw new UnsupportedOperationException();
    }

    default boolean hasPermission(Permission permission) {
        throw new UnsupportedOperationException();
    }
}
