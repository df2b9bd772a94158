package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.steps.SynchronousNonBlockingStepExecution:
// jenkinsci/workflow-step-api-plugin, commit 0773c3c (2025-11-17; bom-2.555.x 6916 manages 724.v538c2362b_dfb_, whose
// commit the snapshot lacks),
// src/main/java/org/jenkinsci/plugins/workflow/steps/SynchronousNonBlockingStepExecution.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the constructor. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;

public abstract class SynchronousNonBlockingStepExecution<T> extends StepExecution {
    private static final long serialVersionUID = 1L;

    protected SynchronousNonBlockingStepExecution(@NonNull StepContext context) {
        super(context);
    }

    protected abstract T run() throws Exception;

    @Override
    public final boolean start() throws Exception {
        throw new RuntimeException("Stub!");
    }

    @Override
    public void stop(Throwable cause) throws Exception {
        throw new RuntimeException("Stub!");
    }

    @Override
    public void onResume() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public @NonNull String getStatus() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public boolean blocksRestart() {
        throw new RuntimeException("Stub!");
    }
}
