package io.jenkins.plugins.gpusanitizer.steps;

import hudson.AbortException;
import hudson.FilePath;
import hudson.model.TaskListener;
import hudson.remoting.VirtualChannel;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.ProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.Runner;
import io.jenkins.plugins.gpusanitizer.results.AgentSummary;
import io.jenkins.plugins.gpusanitizer.results.Summaries;
import java.io.File;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jenkins.MasterToSlaveFileCallable;

/**
 * Runs the engine's three-phase runner on the agent that has the GPU; streams its progress lines
 * into the build log. An abort reaches it as {@link Stop}: the runner is interrupted, kills the whole
 * process tree (the target first, so compute-sanitizer can still write its XML), writes its report,
 * and this call returns the summary marked aborted, so the controller attaches the partial results.
 */
final class AgentRun extends MasterToSlaveFileCallable<AgentSummary> {
    private static final long serialVersionUID = 1L;

    /** The runs going on in this JVM (the agent's), by run directory: what {@link Stop} interrupts. */
    private static final Map<String, Thread> RUNNING = new ConcurrentHashMap<>();

    private final RunSpec spec;
    private final Map<String, String> env;
    private final TaskListener listener;
    /** The controller's {@link LauncherStarter}, exported over the channel; null: start here (tests). */
    private final ProcessStarter starter;

    private final boolean resume;

    /**
     * @param starter where the processes start (the exported launcher); null for this agent's JVM
     * @param resume  take up the run in the run directory after a restart instead of starting one
     */
    AgentRun(RunSpec spec, Map<String, String> env, TaskListener listener, ProcessStarter starter, boolean resume) {
        this.spec = spec;
        this.env = Map.copyOf(env);
        this.listener = listener;
        this.starter = starter;
        this.resume = resume;
    }

    @Override
    public AgentSummary invoke(File workspace, VirtualChannel channel) throws IOException, InterruptedException {
        if (spec.workDir() == null) {
            spec.workDir(workspace.getAbsolutePath());
        }
        String key = spec.outDir();
        Thread current = Thread.currentThread();
        // after a controller restart the old call may still run here: the resumed one takes over (the run
        // lease makes the old one step back without stopping the phases)
        Thread previous = resume ? RUNNING.put(key, current) : RUNNING.putIfAbsent(key, current);
        if (previous != null && !resume) {
            throw new AbortException("GPU Sanitizer: a run in " + key + " is already going on");
        }
        try {
            // detached: the phases outlive this call (a restart); an abort stops them through the run directory
            Runner runner = starter == null
                    ? new Runner(spec, env, line -> listener.getLogger().println(line))
                    : new Runner(spec, env, line -> listener.getLogger().println(line), starter, true);
            Report report = resume ? runner.resume() : runner.run();
            // the runner re-sets the interrupt flag when it was aborted; its report is complete all the same
            boolean aborted = Thread.interrupted();
            return Summaries.of(report, spec.outDir(), aborted);
        } catch (RunException e) {
            throw new AbortException("GPU Sanitizer: " + e.getMessage());
        } finally {
            RUNNING.remove(key, current);
        }
    }

    /** Whether a run writing to this run directory is going on in this JVM. */
    static boolean running(String runDirectory) {
        return RUNNING.containsKey(runDirectory);
    }

    /** The agent-side path of the run directory, for a workspace. */
    static String runDirectory(FilePath tempDir, String id, int build) {
        return tempDir.child("gpu-sanitize").child(build + "-" + id).getRemote();
    }

    /** Asks the run writing to a run directory to stop; true when one was going on. */
    static final class Stop extends MasterToSlaveFileCallable<Boolean> {
        private static final long serialVersionUID = 1L;
        private final String runDirectory;

        Stop(String runDirectory) {
            this.runDirectory = runDirectory;
        }

        @Override
        public Boolean invoke(File workspace, VirtualChannel channel) {
            Thread running = RUNNING.get(runDirectory);
            if (running == null) {
                return false;
            }
            running.interrupt();
            return true;
        }
    }
}
