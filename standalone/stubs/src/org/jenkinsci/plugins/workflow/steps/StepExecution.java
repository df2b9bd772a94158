package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.steps.StepExecution:
// jenkinsci/workflow-step-api-plugin, commit 0773c3c (2025-11-17; bom-2.555.x 6916 manages 724.v538c2362b_dfb_, whose
// commit the snapshot lacks),
// src/main/java/org/jenkinsci/plugins/workflow/steps/StepExecution.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the constructor and getContext(), which keep and give the context as the real ones do (the
// unit tests run an execution against a mocked context), and onResume(), which does nothing here. Never packaged
// (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.NonNull;
import java.io.Serializable;

public abstract class StepExecution implements Serializable {
    private static final long serialVersionUID = 1L;

    private StepContext context;

    protected StepExecution(@NonNull StepContext context) {
        this.context = context;
    }

    public @NonNull StepContext getContext() {
        return context;
    }

    public abstract boolean start() throws Exception;

    public void stop(@NonNull Throwable cause) throws Exception {
        throw new RuntimeException("Stub!");
    }

    public void onResume() {}

    public @CheckForNull String getStatus() {
        throw new RuntimeException("Stub!");
    }

    public boolean blocksRestart() {
        throw new RuntimeException("Stub!");
    }
}
