package hudson.slaves;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import hudson.FilePath;

public final class WorkspaceList {
    public static FilePath tempDir(FilePath ws) {
        throw new UnsupportedOperationException();
    }
}
