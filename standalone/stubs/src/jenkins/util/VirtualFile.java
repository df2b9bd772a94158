package jenkins.util;

// Compile-only signature stub of jenkins.util.VirtualFile: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/jenkins/util/VirtualFile.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// declared so that DirectoryBrowserSupport has both of its real five-argument constructors. Never packaged
// (see ../README.md).

import java.io.Serializable;

public abstract class VirtualFile implements Comparable<VirtualFile>, Serializable {
    private static final long serialVersionUID = 1L;
}
