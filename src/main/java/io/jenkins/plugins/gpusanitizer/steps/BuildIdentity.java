package io.jenkins.plugins.gpusanitizer.steps;

import hudson.security.ACL;
import hudson.security.ACLContext;
import java.io.IOException;
import org.jenkinsci.plugins.workflow.flow.FlowExecution;
import org.jenkinsci.plugins.workflow.steps.StepContext;

/**
 * Acts as the build: the step's work off the Pipeline's thread (the preparation, the collection after
 * the run) runs as the build's authentication, which the flow execution keeps across restarts, not as
 * the thread's own. A resumed step's threads are SYSTEM (onResume runs on {@code
 * Computer.threadPoolForRemoting}, which impersonates {@code ACL.SYSTEM2}), and the reference lookup's
 * permission check ({@code References}) must refuse there what it refuses the build.
 */
interface BuildIdentity {
    /** Acts as the build until the result is closed. */
    AutoCloseable actAs(StepContext context) throws IOException, InterruptedException;

    /** The flow execution's authentication ({@code FlowExecution.getAuthentication2()}). */
    BuildIdentity FLOW = context -> {
        FlowExecution execution = context.get(FlowExecution.class);
        if (execution == null) {
            throw new IOException("the step's context has no flow execution to take the build's identity from");
        }
        ACLContext acting = ACL.as2(execution.getAuthentication2());
        return acting::close;
    };
}
