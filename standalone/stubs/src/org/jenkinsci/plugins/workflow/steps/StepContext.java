package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.steps.StepContext: jenkinsci/workflow-step-api-plugin,
// commit 0773c3c (2025-11-17; bom-2.555.x 6916 manages 724.v538c2362b_dfb_, whose commit the snapshot lacks),
// src/main/java/org/jenkinsci/plugins/workflow/steps/StepContext.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Every abstract method of the real class is declared (saveState, newBodyInvoker, equals and hashCode
// among them): a class of the project that extends StepContext must compile against the real API (issue #41).
// Never packaged (see ../README.md).

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.ListenableFuture;
import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.Nullable;
import hudson.model.Result;
import java.io.IOException;
import java.io.Serializable;

public abstract class StepContext implements FutureCallback<Object>, Serializable {
    private static final long serialVersionUID = 1L;

    @CheckForNull
    public abstract <T> T get(Class<T> key) throws IOException, InterruptedException;

    @Override
    public abstract void onSuccess(@Nullable Object result);

    public abstract boolean isReady();

    public abstract ListenableFuture<Void> saveState();

    public abstract void setResult(Result r);

    public abstract BodyInvoker newBodyInvoker() throws IllegalStateException;

    public boolean hasBody() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public abstract boolean equals(Object o);

    @Override
    public abstract int hashCode();
}
