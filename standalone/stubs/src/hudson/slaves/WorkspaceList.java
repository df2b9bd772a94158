package hudson.slaves;

// Compile-only signature stub of hudson.slaves.WorkspaceList: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/slaves/WorkspaceList.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import hudson.FilePath;

public final class WorkspaceList {
    @CheckForNull
    public static FilePath tempDir(FilePath ws) {
        throw new RuntimeException("Stub!");
    }
}
