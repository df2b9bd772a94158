package jenkins;

// Compile-only signature stub of jenkins.MasterToSlaveFileCallable: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/jenkins/MasterToSlaveFileCallable.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import jenkins.agents.ControllerToAgentFileCallable;

public abstract class MasterToSlaveFileCallable<T> implements ControllerToAgentFileCallable<T> {
    private static final long serialVersionUID = 1L;
}
