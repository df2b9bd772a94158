package org.jenkinsci.plugins.workflow.actions;

// Compile-only signature stub of workflow-api (bom-2.555.x), written from the public API (see ../README.md). Never
// packaged.

import hudson.model.Action;

public interface PersistentAction extends Action {}
