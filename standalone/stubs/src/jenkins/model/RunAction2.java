package jenkins.model;

// Compile-only signature stub of jenkins.model.RunAction2: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/jenkins/model/RunAction2.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import hudson.model.Action;
import hudson.model.Run;

public interface RunAction2 extends Action {
    void onAttached(Run<?, ?> r);

    void onLoad(Run<?, ?> r);
}
