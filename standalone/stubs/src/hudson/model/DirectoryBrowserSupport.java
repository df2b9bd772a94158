package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import hudson.FilePath;
import org.kohsuke.stapler.HttpResponse;

public final class DirectoryBrowserSupport implements HttpResponse {
    public DirectoryBrowserSupport(ModelObject owner, FilePath base, String title, String icon, boolean serveDirIndex) {
        throw new UnsupportedOperationException();
    }
}
