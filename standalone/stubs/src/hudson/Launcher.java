package hudson;

// Compile-only signature stub of hudson.Launcher: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/Launcher.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public abstract class Launcher {
    public boolean isUnix() {
        throw new UnsupportedOperationException();
    }
}
