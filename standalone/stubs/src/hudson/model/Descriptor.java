package hudson.model;

// Compile-only signature stub of hudson.model.Descriptor: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/Descriptor.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the constructors, which the unit tests call (the real ones only find the described class).
// Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;

public abstract class Descriptor<T extends Describable<T>> {
    protected Descriptor(Class<? extends T> clazz) {}

    protected Descriptor() {}

    @NonNull
    public String getDisplayName() {
        throw new RuntimeException("Stub!");
    }
}
