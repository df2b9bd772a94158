package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of workflow-step-api 724.v538c2362b_dfb_, written from the public API (see ../README.md).
// Never packaged.

import java.io.Serializable;

public abstract class StepExecution implements Serializable {
    protected StepExecution(StepContext context) {}

    public StepContext getContext() {
        throw new UnsupportedOperationException();
    }

    public abstract boolean start() throws Exception;

    public void stop(Throwable cause) throws Exception {
        throw new UnsupportedOperationException();
    }

    public void onResume() {}
}
