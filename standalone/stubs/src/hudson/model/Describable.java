package hudson.model;

// Compile-only signature stub of hudson.model.Describable: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/Describable.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public interface Describable<T extends Describable<T>> {
    default Descriptor<T> getDescriptor() {
        throw new RuntimeException("Stub!");
    }
}
