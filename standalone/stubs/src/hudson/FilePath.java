package hudson;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import hudson.remoting.VirtualChannel;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;

public final class FilePath implements Serializable {
    public FilePath(VirtualChannel channel, String remote) {
        throw new UnsupportedOperationException();
    }

    public FilePath(File localPath) {
        throw new UnsupportedOperationException();
    }

    public FilePath(FilePath base, String rel) {
        throw new UnsupportedOperationException();
    }

    public String getRemote() {
        throw new UnsupportedOperationException();
    }

    public String getName() {
        throw new UnsupportedOperationException();
    }

    public VirtualChannel getChannel() {
        throw new UnsupportedOperationException();
    }

    public FilePath child(String relOrAbsolute) {
        throw new UnsupportedOperationException();
    }

    public <T> T act(FileCallable<T> callable) throws IOException, InterruptedException {
        throw new UnsupportedOperationException();
    }

    public InputStream read() throws IOException, InterruptedException {
        throw new UnsupportedOperationException();
    }

    public int copyRecursiveTo(FilePath target) throws IOException, InterruptedException {
        throw new UnsupportedOperationException();
    }

    public int copyRecursiveTo(String fileMask, FilePath target) throws IOException, InterruptedException {
        throw new UnsupportedOperationException();
    }

    public void mkdirs() throws IOException, InterruptedException {
        throw new UnsupportedOperationException();
    }

    public boolean exists() throws IOException, InterruptedException {
        throw new UnsupportedOperationException();
    }

    public void deleteRecursive() throws IOException, InterruptedException {
        throw new UnsupportedOperationException();
    }

    public interface FileCallable<T> extends Serializable, org.jenkinsci.remoting.RoleSensitive {
        T invoke(File f, VirtualChannel channel) throws IOException, InterruptedException;
    }
}
