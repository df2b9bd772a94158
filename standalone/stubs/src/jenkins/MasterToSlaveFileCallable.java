package jenkins;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import hudson.FilePath;

public abstract class MasterToSlaveFileCallable<T> implements FilePath.FileCallable<T> {
    private static final long serialVersionUID = 1L;
}
