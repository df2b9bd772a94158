package jenkins.model;

// Compile-only signature stub of jenkins.model.TransientActionFactory: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/jenkins/model/TransientActionFactory.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: actionType(), which returns Action.class as the real one does. Never packaged (see
// ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.ExtensionPoint;
import hudson.model.Action;
import java.util.Collection;

public abstract class TransientActionFactory<T> implements ExtensionPoint {
    public abstract Class<T> type();

    public /* abstract */ Class<? extends Action> actionType() {
        return Action.class;
    }

    public abstract @NonNull Collection<? extends Action> createFor(@NonNull T target);
}
