package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of workflow-step-api 724.v538c2362b_dfb_, written from the public API (see ../README.md).
// Never packaged.

import hudson.model.Result;
import java.io.IOException;
import java.io.Serializable;

/** The real class also implements Guava's FutureCallback&lt;Object&gt;; only the used methods are declared. */
public abstract class StepContext implements Serializable {
    public abstract <T> T get(Class<T> key) throws IOException, InterruptedException;

    public abstract void onSuccess(Object result);

    public abstract void onFailure(Throwable t);

    public abstract void setResult(Result r);
}
