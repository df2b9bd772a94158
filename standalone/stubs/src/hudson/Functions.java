package hudson;

// Compile-only signature stub of hudson.Functions: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/Functions.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: isArtifactsPermissionEnabled(), which reads the system property as the real one does
// (through SystemProperties, which also reads the servlet context's init parameters). Never packaged (see
// ../README.md).

public class Functions {
    public Functions() {}

    public static boolean isArtifactsPermissionEnabled() {
        return Boolean.getBoolean("hudson.security.ArtifactsPermission");
    }
}
