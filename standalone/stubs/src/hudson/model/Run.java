package hudson.model;

// Compile-only signature stub of hudson.model.Run: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/Run.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.ExtensionPoint;
import hudson.security.AccessControlled;
import hudson.security.Permission;
import hudson.util.XStream2;
import java.io.File;
import java.io.IOException;
import java.util.Calendar;

public abstract class Run<JobT extends Job<JobT, RunT>, RunT extends Run<JobT, RunT>> extends Actionable
        implements ExtensionPoint, AccessControlled {
    public static final XStream2 XSTREAM2 = null; // core: (XStream2) XSTREAM, XSTREAM = new XStream2()
    /** core: new Permission(PERMISSIONS, "Artifacts", ..., null, Functions.isArtifactsPermissionEnabled(), RUN). */
    public static final Permission ARTIFACTS = null;

    protected Run(@NonNull JobT job) throws IOException {
        throw new RuntimeException("Stub!");
    }

    protected Run(@NonNull JobT job, @NonNull Calendar timestamp) {
        throw new RuntimeException("Stub!");
    }

    protected Run(@NonNull JobT job, long timestamp) {
        throw new RuntimeException("Stub!");
    }

    protected Run(@NonNull JobT project, @NonNull File buildDir) throws IOException {
        throw new RuntimeException("Stub!");
    }

    public @CheckForNull Result getResult() {
        throw new RuntimeException("Stub!");
    }

    public void setResult(@NonNull Result r) {
        throw new RuntimeException("Stub!");
    }

    public boolean isBuilding() {
        throw new RuntimeException("Stub!");
    }

    public @NonNull JobT getParent() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public String getDisplayName() {
        throw new RuntimeException("Stub!");
    }

    public int getNumber() {
        throw new RuntimeException("Stub!");
    }

    public @CheckForNull RunT getPreviousBuild() {
        throw new RuntimeException("Stub!");
    }

    public final @CheckForNull RunT getPreviousCompletedBuild() {
        throw new RuntimeException("Stub!");
    }

    public @NonNull String getUrl() {
        throw new RuntimeException("Stub!");
    }

    public @NonNull File getRootDir() {
        throw new RuntimeException("Stub!");
    }

    public synchronized void save() throws IOException {
        throw new RuntimeException("Stub!");
    }

    public @NonNull String getExternalizableId() {
        throw new RuntimeException("Stub!");
    }
}
