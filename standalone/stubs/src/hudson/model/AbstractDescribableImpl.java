package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

public abstract class AbstractDescribableImpl<T extends AbstractDescribableImpl<T>> implements Describable<T> {
    @Override
    public Descriptor<T> getDescriptor() {
        throw new UnsupportedOperationException();
    }
}
