package io.jenkins.plugins.gpusanitizer.steps;

import java.io.IOException;

/**
 * The short calls the controller makes to the agent's {@link AgentRun}, over one channel: a new link
 * after every reconnect or restart. Each call returns within a bounded time or fails; none holds the run.
 */
interface AgentLink {
    /** Starts the run, or takes it up from its directory ({@code resume}); returns at once. */
    void start(boolean resume) throws IOException, InterruptedException;

    /** The progress since {@code offset}; the first poll over a new link hands the agent this controller's starter. */
    AgentProgress poll(int offset) throws IOException, InterruptedException;

    /** Asks the run to stop; false when the agent's JVM holds no running run there. */
    boolean stop() throws IOException, InterruptedException;

    /** The run was collected: the agent lets it go. */
    void forget() throws IOException, InterruptedException;

    /** The agent's name for the log. */
    String agent();
}
