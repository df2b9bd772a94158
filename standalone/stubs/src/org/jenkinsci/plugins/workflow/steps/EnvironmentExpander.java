package org.jenkinsci.plugins.workflow.steps;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.steps.EnvironmentExpander:
// jenkinsci/workflow-step-api-plugin, commit 0773c3c (2025-11-17; bom-2.555.x 6916 manages 724.v538c2362b_dfb_, whose
// commit the snapshot lacks),
// src/main/java/org/jenkinsci/plugins/workflow/steps/EnvironmentExpander.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: getSensitiveVariables(), empty as the real default. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.EnvVars;
import java.io.IOException;
import java.io.Serializable;
import java.util.Collections;
import java.util.Set;

public abstract class EnvironmentExpander implements Serializable {
    private static final long serialVersionUID = 1L;

    public abstract void expand(@NonNull EnvVars env) throws IOException, InterruptedException;

    public @NonNull Set<String> getSensitiveVariables() {
        return Collections.emptySet();
    }
}
