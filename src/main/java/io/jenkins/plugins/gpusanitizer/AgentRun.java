package io.jenkins.plugins.gpusanitizer;

import hudson.FilePath;
import hudson.model.TaskListener;
import hudson.remoting.VirtualChannel;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.Runner;
import java.io.File;
import java.io.IOException;
import java.util.Map;
import jenkins.MasterToSlaveFileCallable;

/**
 * Runs the engine's three-phase runner on the agent that has the GPU; streams its progress lines
 * into the build log. An abort interrupts this call: the runner then kills the whole process tree
 * and still writes its report.
 */
final class AgentRun extends MasterToSlaveFileCallable<AgentSummary> {
    private static final long serialVersionUID = 1L;

    private final RunSpec spec;
    private final Map<String, String> env;
    private final TaskListener listener;

    AgentRun(RunSpec spec, Map<String, String> env, TaskListener listener) {
        this.spec = spec;
        this.env = Map.copyOf(env);
        this.listener = listener;
    }

    @Override
    public AgentSummary invoke(File workspace, VirtualChannel channel) throws IOException, InterruptedException {
        if (spec.workDir() == null) {
            spec.workDir(workspace.getAbsolutePath());
        }
        try {
            Report r = new Runner(spec, env, line -> listener.getLogger().println(line)).run();
            if (Thread.interrupted()) {
                throw new InterruptedException(
                        "aborted; the run directory and report were written to " + spec.outDir());
            }
            return Summaries.of(r, spec.outDir());
        } catch (RunException e) {
            throw new hudson.AbortException("GPU Sanitizer: " + e.getMessage());
        }
    }

    /** The agent-side path of the run directory, for a workspace. */
    static String runDirectory(FilePath tempDir, String id, int build) {
        return tempDir.child("gpu-sanitize").child(build + "-" + id).getRemote();
    }
}
