package org.jenkinsci.plugins.workflow.graph;

// Compile-only signature stub of workflow-api (bom-2.555.x), written from the public API (see ../README.md). Never
// packaged.

import hudson.model.Actionable;

public abstract class FlowNode extends Actionable {}
