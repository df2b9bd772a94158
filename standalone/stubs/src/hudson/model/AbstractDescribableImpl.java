package hudson.model;

// Compile-only signature stub of hudson.model.AbstractDescribableImpl: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/AbstractDescribableImpl.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

@Deprecated(since = "2.505")
public abstract class AbstractDescribableImpl<T extends AbstractDescribableImpl<T>> implements Describable<T> {}
