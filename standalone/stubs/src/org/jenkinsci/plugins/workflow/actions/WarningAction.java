package org.jenkinsci.plugins.workflow.actions;

// Compile-only signature stub of workflow-api (bom-2.555.x), written from the public API (see ../README.md). Never
// packaged.

import hudson.model.Result;

public class WarningAction implements PersistentAction {
    public WarningAction(Result result) {
        throw new UnsupportedOperationException();
    }

    public WarningAction withMessage(String message) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String getIconFileName() {
        return null;
    }

    @Override
    public String getDisplayName() {
        return null;
    }

    @Override
    public String getUrlName() {
        return null;
    }
}
