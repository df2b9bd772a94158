package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.steps.StepDescriptor:
// jenkinsci/workflow-step-api-plugin, commit 0773c3c (2025-11-17; bom-2.555.x 6916 manages 724.v538c2362b_dfb_, whose
// commit the snapshot lacks),
// src/main/java/org/jenkinsci/plugins/workflow/steps/StepDescriptor.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: checkContextAvailability, which reports the first missing class in getRequiredContext() order
// as the real one. Never packaged (see ../README.md).

import hudson.model.Descriptor;
import java.io.IOException;
import java.util.Set;

public abstract class StepDescriptor extends Descriptor<Step> {
    public abstract Set<? extends Class<?>> getRequiredContext();

    public Set<? extends Class<?>> getProvidedContext() {
        throw new RuntimeException("Stub!");
    }

    public abstract String getFunctionName();

    public boolean takesImplicitBlockArgument() {
        throw new RuntimeException("Stub!");
    }

    public boolean isAdvanced() {
        throw new RuntimeException("Stub!");
    }

    public final void checkContextAvailability(StepContext c)
            throws MissingContextVariableException, IOException, InterruptedException {
        for (Class<?> type : getRequiredContext()) {
            if (c.get(type) == null) {
                throw new MissingContextVariableException(type, this);
            }
        }
    }
}
