package jenkins.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import hudson.model.Action;
import hudson.model.Run;

public interface RunAction2 extends Action {
    void onAttached(Run<?, ?> r);

    void onLoad(Run<?, ?> r);
}
