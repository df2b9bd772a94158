package io.jenkins.plugins.gpusanitizer.steps;

import io.jenkins.plugins.gpusanitizer.results.AgentSummary;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * One poll's answer from the agent ({@link AgentRun.Poll}): the runner's progress lines since the
 * offset the controller gave, the offset to give next time, and whether the run is going on, ended
 * (with its summary, or the one-line reason it has none), or unknown to the agent's JVM (it restarted:
 * the controller takes the run up from its directory).
 */
record AgentProgress(State state, ArrayList<String> lines, int nextOffset, AgentSummary summary, String failure)
        implements Serializable {
    enum State {
        RUNNING,
        ENDED,
        UNKNOWN
    }

    static AgentProgress running(List<String> lines, int nextOffset) {
        return new AgentProgress(State.RUNNING, new ArrayList<>(lines), nextOffset, null, null);
    }

    static AgentProgress ended(List<String> lines, int nextOffset, AgentSummary summary, String failure) {
        return new AgentProgress(State.ENDED, new ArrayList<>(lines), nextOffset, summary, failure);
    }

    static AgentProgress unknown() {
        return new AgentProgress(State.UNKNOWN, new ArrayList<>(), 0, null, null);
    }
}
