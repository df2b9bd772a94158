package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.steps.MissingContextVariableException:
// jenkinsci/workflow-step-api-plugin, commit 0773c3c (2025-11-17; bom-2.555.x 6916 manages 724.v538c2362b_dfb_, whose
// commit the snapshot lacks),
// src/main/java/org/jenkinsci/plugins/workflow/steps/MissingContextVariableException.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the constructor and getType(), as the real ones (getMessage() needs a running Jenkins). Never
// packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.NonNull;

public class MissingContextVariableException extends Exception {
    private static final long serialVersionUID = 1L;
    private final @NonNull Class<?> type;

    public MissingContextVariableException(@NonNull Class<?> type, @CheckForNull StepDescriptor d) {
        this.type = type;
    }

    public Class<?> getType() {
        return type;
    }
}
