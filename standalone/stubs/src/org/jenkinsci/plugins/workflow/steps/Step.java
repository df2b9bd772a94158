package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.steps.Step: jenkinsci/workflow-step-api-plugin, commit
// 0773c3c (2025-11-17; bom-2.555.x 6916 manages 724.v538c2362b_dfb_, whose commit the snapshot lacks),
// src/main/java/org/jenkinsci/plugins/workflow/steps/Step.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import hudson.ExtensionPoint;
import hudson.model.AbstractDescribableImpl;

public abstract class Step extends AbstractDescribableImpl<Step> implements ExtensionPoint {
    public abstract StepExecution start(StepContext context) throws Exception;

    @Override
    public StepDescriptor getDescriptor() {
        throw new RuntimeException("Stub!");
    }
}
