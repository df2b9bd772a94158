package org.jenkinsci.plugins.workflow.actions;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.actions.WarningAction: jenkinsci/workflow-api-plugin,
// tag 1413.v2ff1a_5e720fa_ (bom-2.555.x 6916),
// src/main/java/org/jenkinsci/plugins/workflow/actions/WarningAction.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.model.Result;

public class WarningAction implements PersistentAction {
    public WarningAction(@NonNull Result result) {
        throw new RuntimeException("Stub!");
    }

    public WarningAction withMessage(String message) {
        throw new RuntimeException("Stub!");
    }

    public @CheckForNull String getMessage() {
        throw new RuntimeException("Stub!");
    }

    public @NonNull Result getResult() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public String getDisplayName() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public String getIconFileName() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public String getUrlName() {
        throw new RuntimeException("Stub!");
    }
}
