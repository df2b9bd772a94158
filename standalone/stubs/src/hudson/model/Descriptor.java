package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

public abstract class Descriptor<T extends Describable<T>> {
    protected Descriptor() {}

    protected Descriptor(Class<? extends T> clazz) {}

    public String getDisplayName() {
        throw new UnsupportedOperationException();
    }
}
