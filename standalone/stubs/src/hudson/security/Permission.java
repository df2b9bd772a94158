package hudson.security;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

public final class Permission {
    /** The stub has no permission groups; real permissions are created by core. */
    public Permission() {}
}
