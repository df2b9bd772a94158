package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

public interface Action extends ModelObject {
    String getIconFileName();

    String getDisplayName();

    String getUrlName();
}
