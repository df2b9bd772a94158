package io.jenkins.plugins.gpusanitizer.steps;

import hudson.EnvVars;
import hudson.FilePath;
import hudson.Launcher;
import hudson.model.TaskListener;
import hudson.remoting.VirtualChannel;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import jenkins.util.Timer;
import org.jenkinsci.plugins.workflow.FilePathUtils;
import org.jenkinsci.plugins.workflow.steps.StepContext;

/**
 * What the execution needs from Jenkins beyond its step context: the timer its polls run on, the
 * workers that prepare and collect, the build's identity, and the agent's live workspace and links.
 * One seam, so the unit tests replay a restart or a reconnect without a controller.
 */
interface StepHost {
    /** The polls: short calls only (durable-task polls on its own pool or {@code jenkins.util.Timer}). */
    ScheduledExecutorService timer();

    /** The preparation and the collection: they copy files and may take long, so not on the timer. */
    ExecutorService workers();

    BuildIdentity identity();

    /** The controller's work before and after the run. */
    GpuSanitizeRecorder recorder(GpuSanitizeStep step);

    /** The node's name, kept with the step to find the workspace again after a restart. */
    String nodeOf(FilePath workspace);

    /** The workspace on its node's current channel, or null while the node is offline (FilePathUtils.find). */
    FilePath workspace(String node, String path);

    /** The channel a workspace goes over: a new one means a new link. */
    Object channelOf(FilePath workspace);

    /** A link over the workspace's channel, with this controller's starter exported to it. */
    AgentLink link(FilePath workspace, String agent, RunSpec spec, EnvVars env, StepContext context)
            throws IOException, InterruptedException;

    StepHost JENKINS = new StepHost() {
        private final ExecutorService workers = Executors.newCachedThreadPool(new Named());

        @Override
        public ScheduledExecutorService timer() {
            return Timer.get();
        }

        @Override
        public ExecutorService workers() {
            return workers;
        }

        @Override
        public BuildIdentity identity() {
            return BuildIdentity.FLOW;
        }

        @Override
        public GpuSanitizeRecorder recorder(GpuSanitizeStep step) {
            return new GpuSanitizeRecorder(step);
        }

        @Override
        public String nodeOf(FilePath workspace) {
            String node = FilePathUtils.getNodeNameOrNull(workspace);
            if (node == null) {
                throw new IllegalStateException("no known agent for the workspace " + workspace.getRemote());
            }
            return node;
        }

        @Override
        public FilePath workspace(String node, String path) {
            return FilePathUtils.find(node, path);
        }

        @Override
        public Object channelOf(FilePath workspace) {
            return workspace.getChannel();
        }

        @Override
        public AgentLink link(FilePath workspace, String agent, RunSpec spec, EnvVars env, StepContext context)
                throws IOException, InterruptedException {
            Launcher launcher = GpuSanitizeExecution.required(context, Launcher.class);
            TaskListener listener = GpuSanitizeExecution.required(context, TaskListener.class);
            ProcessStarter starter = new LauncherStarter(launcher, listener, LauncherStarter.cookieOf(spec.outDir()));
            VirtualChannel channel = workspace.getChannel();
            ProcessStarter exported = channel == null ? starter : channel.export(ProcessStarter.class, starter);
            return new ChannelAgentLink(workspace, agent, spec, env, exported);
        }
    };

    /** Daemon threads with a name that says whose they are in a thread dump. */
    final class Named implements java.util.concurrent.ThreadFactory {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "gpuSanitize worker " + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
