package hudson;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

public abstract class Launcher {
    public boolean isUnix() {
        throw new UnsupportedOperationException();
    }
}
