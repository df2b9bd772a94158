package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import java.util.List;

public abstract class Actionable {
    public <T extends Action> T getAction(Class<T> type) {
        throw new UnsupportedOperationException();
    }

    public <T extends Action> List<T> getActions(Class<T> type) {
        throw new UnsupportedOperationException();
    }

    public void addAction(Action a) {
        throw new UnsupportedOperationException();
    }

    public boolean addOrReplaceAction(Action a) {
        throw new UnsupportedOperationException();
    }

    public void replaceAction(Action a) {
        throw new UnsupportedOperationException();
    }
}
