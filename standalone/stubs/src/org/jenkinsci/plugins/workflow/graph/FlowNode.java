package org.jenkinsci.plugins.workflow.graph;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.graph.FlowNode: jenkinsci/workflow-api-plugin, tag
// 1413.v2ff1a_5e720fa_ (bom-2.555.x 6916),
// src/main/java/org/jenkinsci/plugins/workflow/graph/FlowNode.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import hudson.model.Actionable;
import java.util.List;
import org.jenkinsci.plugins.workflow.flow.FlowExecution;

public abstract class FlowNode extends Actionable {
    // implements Saveable in workflow-api; addOrReplaceAction comes from Actionable

    // the real constructors are protected (no implicit public one)
    protected FlowNode(FlowExecution exec, String id, List<FlowNode> parents) {
        throw new RuntimeException("Stub!");
    }

    protected FlowNode(FlowExecution exec, String id, FlowNode... parents) {
        throw new RuntimeException("Stub!");
    }
}
