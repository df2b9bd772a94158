package hudson.model;

// Compile-only signature stub of hudson.model.DirectoryBrowserSupport: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/DirectoryBrowserSupport.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the constructors, which keep owner and title as the real one does. Never packaged (see
// ../README.md).

import hudson.FilePath;
import jenkins.util.VirtualFile;
import org.kohsuke.stapler.HttpResponse;

public final class DirectoryBrowserSupport implements HttpResponse {
    public final ModelObject owner;

    public final String title;

    public DirectoryBrowserSupport(
            ModelObject owner, VirtualFile base, String title, String icon, boolean serveDirIndex) {
        this.owner = owner;
        this.title = title;
    }

    public DirectoryBrowserSupport(ModelObject owner, FilePath base, String title, String icon, boolean serveDirIndex) {
        this.owner = owner;
        this.title = title;
    }
}
