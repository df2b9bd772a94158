package jenkins.agents;

// Compile-only signature stub of jenkins.agents.ControllerToAgentFileCallable: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/jenkins/agents/ControllerToAgentFileCallable.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import hudson.FilePath;
import org.jenkinsci.remoting.RoleChecker;

public interface ControllerToAgentFileCallable<T> extends FilePath.FileCallable<T> {
    @Override
    default void checkRoles(RoleChecker checker) throws SecurityException {
        throw new RuntimeException("Stub!");
    }
}
