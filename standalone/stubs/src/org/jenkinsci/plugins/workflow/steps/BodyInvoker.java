package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.steps.BodyInvoker: jenkinsci/workflow-step-api-plugin,
// commit 0773c3c (2025-11-17; bom-2.555.x 6916 manages 724.v538c2362b_dfb_, whose commit the snapshot lacks),
// src/main/java/org/jenkinsci/plugins/workflow/steps/BodyInvoker.java: what StepContext.newBodyInvoker returns.
// The plugin's step takes no body, so none of its members is declared. Never packaged (see ../README.md).

public abstract class BodyInvoker {}
