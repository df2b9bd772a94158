package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of workflow-step-api 724.v538c2362b_dfb_, written from the public API (see ../README.md).
// Never packaged.

import hudson.model.Descriptor;
import java.util.Set;

public abstract class StepDescriptor extends Descriptor<Step> {
    public abstract Set<? extends Class<?>> getRequiredContext();

    public abstract String getFunctionName();

    public boolean takesImplicitBlockArgument() {
        return false;
    }
}
