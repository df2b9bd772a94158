package hudson;

// Compile-only signature stub of hudson.ExtensionPoint: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/ExtensionPoint.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public interface ExtensionPoint {}
