package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of workflow-step-api 724.v538c2362b_dfb_, written from the public API (see ../README.md).
// Never packaged.

import hudson.ExtensionPoint;
import hudson.model.AbstractDescribableImpl;

public abstract class Step extends AbstractDescribableImpl<Step> implements ExtensionPoint {
    public abstract StepExecution start(StepContext context) throws Exception;
}
