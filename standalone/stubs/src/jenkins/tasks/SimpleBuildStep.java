package jenkins.tasks;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import hudson.model.Action;
import java.util.Collection;

public interface SimpleBuildStep {
    interface LastBuildAction extends Action {
        Collection<? extends Action> getProjectActions();
    }
}
