package hudson.model;

// Compile-only signature stub of hudson.model.Actionable: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/Actionable.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import edu.umd.cs.findbugs.annotations.Nullable;
import java.util.List;

public abstract class Actionable extends AbstractModelObject {
    @NonNull
    public <T extends Action> List<T> getActions(Class<T> type) {
        throw new RuntimeException("Stub!");
    }

    public void addAction(@NonNull Action a) {
        throw new RuntimeException("Stub!");
    }

    public boolean removeAction(@Nullable Action a) {
        throw new RuntimeException("Stub!");
    }

    public void replaceAction(@NonNull Action a) {
        throw new RuntimeException("Stub!");
    }

    public boolean addOrReplaceAction(@NonNull Action a) {
        throw new RuntimeException("Stub!");
    }

    @Deprecated
    public Action getAction(int index) {
        throw new RuntimeException("Stub!");
    }

    public <T extends Action> T getAction(Class<T> type) {
        throw new RuntimeException("Stub!");
    }
}
