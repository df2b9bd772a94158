package hudson.model;

// Compile-only signature stub of hudson.model.Action: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/Action.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;

public interface Action extends ModelObject {
    @CheckForNull
    String getIconFileName();

    @Override
    @CheckForNull
    String getDisplayName();

    @CheckForNull
    String getUrlName();
}
