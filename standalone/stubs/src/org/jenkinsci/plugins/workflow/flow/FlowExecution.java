package org.jenkinsci.plugins.workflow.flow;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.flow.FlowExecution:
// jenkinsci/workflow-api-plugin, commit cbc88d9 (bom-2.555.x 6916 manages 1413.v2ff1a_5e720fa_),
// src/main/java/org/jenkinsci/plugins/workflow/flow/FlowExecution.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability (its
// interfaces FlowActionStorage and GraphLookupView are not used by the plugin and left out); bodies throw.
// Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import org.springframework.security.core.Authentication;

public abstract class FlowExecution {
    public @NonNull Authentication getAuthentication2() {
        throw new RuntimeException("Stub!");
    }
}
