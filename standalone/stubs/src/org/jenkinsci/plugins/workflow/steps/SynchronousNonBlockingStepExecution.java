package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of workflow-step-api 724.v538c2362b_dfb_, written from the public API (see ../README.md).
// Never packaged.

public abstract class SynchronousNonBlockingStepExecution<T> extends StepExecution {
    protected SynchronousNonBlockingStepExecution(StepContext context) {
        super(context);
    }

    protected abstract T run() throws Exception;

    @Override
    public final boolean start() throws Exception {
        throw new UnsupportedOperationException();
    }
}
