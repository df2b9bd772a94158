package hudson;

// Compile-only signature stub of hudson.FilePath: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/FilePath.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: FilePath(File) and getRemote(), which keep the path as the real ones do (without its
// normalisation). Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.remoting.Future;
import hudson.remoting.VirtualChannel;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.file.OpenOption;
import java.util.List;
import org.jenkinsci.remoting.RoleSensitive;
import org.jenkinsci.remoting.SerializableOnlyOverRemoting;

public final class FilePath implements SerializableOnlyOverRemoting {
    private static final long serialVersionUID = 1L;
    private final String remote;

    public FilePath(@CheckForNull VirtualChannel channel, @NonNull String remote) {
        throw new RuntimeException("Stub!");
    }

    public FilePath(@NonNull File localPath) {
        this.remote = localPath.getPath();
    }

    public FilePath(@NonNull FilePath base, @NonNull String rel) {
        throw new RuntimeException("Stub!");
    }

    public String getRemote() {
        return remote;
    }

    public String getName() {
        throw new RuntimeException("Stub!");
    }

    public VirtualChannel getChannel() {
        throw new RuntimeException("Stub!");
    }

    public @NonNull FilePath child(String relOrAbsolute) {
        throw new RuntimeException("Stub!");
    }

    public <T> T act(final FileCallable<T> callable) throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    public <V, E extends Throwable> V act(hudson.remoting.Callable<V, E> callable)
            throws IOException, InterruptedException, E {
        throw new RuntimeException("Stub!");
    }

    public <T> Future<T> actAsync(final FileCallable<T> callable) throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    public InputStream read() throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    public InputStream read(FilePath rootPath, OpenOption... openOptions) throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    @NonNull
    public List<FilePath> list() throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    @NonNull
    public List<FilePath> list(java.io.FileFilter filter) throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    @NonNull
    public FilePath[] list(String includes) throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    @NonNull
    public FilePath[] list(String includes, String excludes) throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    @NonNull
    public List<FilePath> list(FilePath rootPath, OpenOption... openOptions) throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    @NonNull
    public FilePath[] list(final String includes, final String excludes, final boolean defaultExcludes)
            throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    public int copyRecursiveTo(FilePath target) throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    public void mkdirs() throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    public boolean exists() throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    public boolean isDirectory() throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    public void deleteRecursive() throws IOException, InterruptedException {
        throw new RuntimeException("Stub!");
    }

    public interface FileCallable<T> extends Serializable, RoleSensitive {
        T invoke(File f, VirtualChannel channel) throws IOException, InterruptedException;
    }
}
