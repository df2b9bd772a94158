package io.jenkins.plugins.gpusanitizer.steps;

import edu.umd.cs.findbugs.annotations.SuppressFBWarnings;
import hudson.AbortException;
import hudson.remoting.VirtualChannel;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.Runner;
import io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter;
import io.jenkins.plugins.gpusanitizer.results.AgentSummary;
import io.jenkins.plugins.gpusanitizer.results.Summaries;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import jenkins.MasterToSlaveFileCallable;

/**
 * The run of one {@code gpuSanitize} on the agent that has the GPU, held by the agent's JVM and not by
 * any call from the controller. The controller only makes short calls, as durable-task's {@code sh}
 * step polls its controlled process: {@link Start} starts the engine's runner on a thread of the
 * agent's own and returns at once, {@link Poll} hands over the progress lines written since the last
 * poll and, once the runner ended, its summary; {@link Stop} asks it to stop. A controller restart or
 * an agent reconnect closes the channel, which interrupts the calls that are executing on it
 * (remoting's {@code Channel.terminate}); none is, so the run goes on, its processes start through
 * the {@link ReconnectingStarter} once a controller is back, and the next poll collects what ended.
 * When the agent's JVM itself went away, its phases run on detached and the controller's next {@link
 * Start} with {@code resume} takes them up from the run directory ({@link Runner#resume}).
 */
final class AgentRun {
    /** The runs held by this JVM (the agent's), by run directory. */
    private static final Map<String, AgentRun> RUNS = new ConcurrentHashMap<>();
    /** Makes looking up and registering a run one step. */
    private static final Object REGISTRY = new Object();

    /** Most progress lines one poll returns: the rest come with the next. */
    static final int LINES_PER_POLL = 500;

    private final String runDirectory;
    private final ReconnectingStarter starter;
    private final List<String> lines = new ArrayList<>();
    private Thread thread;
    private AgentSummary summary;
    private String failure;
    private boolean ended;
    private final java.util.concurrent.CountDownLatch end = new java.util.concurrent.CountDownLatch(1);

    private AgentRun(String runDirectory, ReconnectingStarter starter) {
        this.runDirectory = runDirectory;
        this.starter = starter;
    }

    /** Whether this JVM holds a run writing to this run directory that has not ended. */
    static boolean running(String runDirectory) {
        AgentRun run = RUNS.get(runDirectory);
        return run != null && !run.hasEnded();
    }

    /** For tests: waits until the run this JVM holds in the directory ended (true at once when it holds none). */
    static boolean awaitEnd(String runDirectory, long timeout, java.util.concurrent.TimeUnit unit)
            throws InterruptedException {
        AgentRun run = RUNS.get(runDirectory);
        return run == null || run.end.await(timeout, unit);
    }

    /** The agent-side path of the run directory, for a workspace's temporary directory. */
    static String runDirectory(hudson.FilePath tempDir, String id, int build) {
        return tempDir.child("gpu-sanitize").child(build + "-" + id).getRemote();
    }

    private void run(RunSpec spec, Map<String, String> env, boolean resume) {
        AgentSummary result = null;
        String error = null;
        try {
            Runner runner = starter.delegatesToController()
                    ? new Runner(spec, env, this::say, starter, true)
                    : new Runner(spec, env, this::say);
            starter.checkingLeaseWith(runner::checkLease);
            Report report = resume ? runner.resume() : runner.run();
            // the runner sets the interrupt flag again when it was aborted; its report is complete all the same
            boolean aborted = Thread.interrupted();
            result = Summaries.of(report, spec.outDir(), aborted);
        } catch (RunException e) {
            error = "GPU Sanitizer: " + e.getMessage();
        } catch (RuntimeException e) {
            error = "GPU Sanitizer: the runner failed on the agent: " + e;
        }
        synchronized (this) {
            summary = result;
            failure = error;
            ended = true;
        }
        end.countDown();
    }

    private synchronized void say(String line) {
        lines.add(line);
    }

    private synchronized boolean hasEnded() {
        return ended;
    }

    private synchronized AgentProgress progress(int offset) {
        int from = Math.min(Math.max(offset, 0), lines.size());
        int to = Math.min(lines.size(), from + LINES_PER_POLL);
        List<String> next = List.copyOf(lines.subList(from, to));
        if (ended && to == lines.size()) {
            return AgentProgress.ended(next, to, summary, failure);
        }
        return AgentProgress.running(next, to);
    }

    /**
     * Starts the run on a thread of this JVM, or, when this JVM already holds it (a controller that came
     * back), gives it the new controller's starter. Returns at once.
     */
    static final class Start extends MasterToSlaveFileCallable<Void> {
        private static final long serialVersionUID = 1L;

        private final RunSpec spec;
        private final TreeMap<String, String> env;
        /** The controller's {@link LauncherStarter}, exported over the channel; null: start here (tests). */
        @SuppressFBWarnings(
                value = "SE_BAD_FIELD",
                justification =
                        "a proxy of Channel.export, serialized by remoting as a reference to the exported object")
        private final ProcessStarter starter;

        private final boolean resume;
        /** The classes the run's thread may need, loaded before it starts ({@link AgentClasses}). */
        private final ArrayList<String> preload;

        /**
         * @param resume take the run up from its directory (a restart, or a start whose answer was lost)
         *     instead of starting one in an empty directory
         */
        Start(RunSpec spec, Map<String, String> env, ProcessStarter starter, boolean resume) {
            this.spec = spec;
            this.env = new TreeMap<>(env);
            this.starter = starter;
            this.resume = resume;
            this.preload = AgentClasses.names();
        }

        @Override
        public Void invoke(File workspace, VirtualChannel channel) throws IOException {
            // as sh does: a job without a checkout has no workspace yet, and the job runs in it
            try {
                Files.createDirectories(workspace.toPath());
            } catch (IOException e) {
                throw new AbortException("GPU Sanitizer: cannot create the workspace " + workspace + ": " + e);
            }
            RunSpec started = spec; // this call's own copy on a real agent (remoting deserialized it)
            if (started.workDir() == null) {
                started.workDir(workspace.getAbsolutePath());
            }
            String key = started.outDir();
            try {
                AgentRunFolder.createPrivate(java.nio.file.Path.of(key));
            } catch (IOException e) {
                throw new AbortException("GPU Sanitizer: cannot create the run directory " + key + ": " + e);
            }
            AgentRun run;
            synchronized (REGISTRY) {
                AgentRun held = RUNS.get(key);
                if (held != null) {
                    if (!resume) {
                        throw new AbortException("GPU Sanitizer: a run in " + key + " is already going on");
                    }
                    held.starter.use(starter);
                    return null;
                }
                run = new AgentRun(key, new ReconnectingStarter(starter));
                RUNS.put(key, run);
            }
            preload(preload);
            Thread thread = new Thread(() -> run.run(started, env, resume), "gpu-sanitize " + key);
            thread.setDaemon(true); // the phases run detached: this JVM's end must not wait for them
            synchronized (run) {
                run.thread = thread;
            }
            thread.start();
            return null;
        }
    }

    /** Whether this class loader (one per remoting channel on an agent) has loaded what a run needs. */
    private static boolean preloaded;

    /**
     * Loads, while the calling channel is open, every class and file a run's thread may need later, when the
     * channel may be closed ({@link AgentClasses}); once per class loader.
     */
    static synchronized void preload(List<String> names) throws AbortException {
        if (preloaded) {
            return;
        }
        AgentClasses.load(names, AgentRun.class.getClassLoader());
        try {
            Runner.preloadResources();
        } catch (IOException e) {
            throw new AbortException("GPU Sanitizer: " + e.getMessage());
        }
        preloaded = true;
    }

    /** The progress since {@code offset}, and the summary once the run ended; {@link AgentProgress#unknown} when this JVM holds no such run. */
    static final class Poll extends MasterToSlaveFileCallable<AgentProgress> {
        private static final long serialVersionUID = 1L;

        private final String runDirectory;
        private final int offset;
        /** A controller's starter to use from now on (the first poll over a new channel), else null. */
        @SuppressFBWarnings(
                value = "SE_BAD_FIELD",
                justification =
                        "a proxy of Channel.export, serialized by remoting as a reference to the exported object")
        private final ProcessStarter starter;

        Poll(String runDirectory, int offset, ProcessStarter starter) {
            this.runDirectory = runDirectory;
            this.offset = offset;
            this.starter = starter;
        }

        @Override
        public AgentProgress invoke(File workspace, VirtualChannel channel) {
            AgentRun run = RUNS.get(runDirectory);
            if (run == null) {
                return AgentProgress.unknown();
            }
            if (starter != null) {
                run.starter.use(starter);
            }
            return run.progress(offset);
        }
    }

    /** Asks the run to stop: its runner kills the job's tree in the order the tool needs and writes the report. */
    static final class Stop extends MasterToSlaveFileCallable<Boolean> {
        private static final long serialVersionUID = 1L;
        private final String runDirectory;

        Stop(String runDirectory) {
            this.runDirectory = runDirectory;
        }

        @Override
        public Boolean invoke(File workspace, VirtualChannel channel) {
            AgentRun run = RUNS.get(runDirectory);
            if (run == null) {
                return false;
            }
            synchronized (run) {
                if (run.ended || run.thread == null) {
                    return false;
                }
                run.thread.interrupt();
                return true;
            }
        }
    }

    /** The controller collected the ended run: this JVM lets it go. */
    static final class Forget extends MasterToSlaveFileCallable<Boolean> {
        private static final long serialVersionUID = 1L;
        private final String runDirectory;

        Forget(String runDirectory) {
            this.runDirectory = runDirectory;
        }

        @Override
        public Boolean invoke(File workspace, VirtualChannel channel) {
            AgentRun run = RUNS.get(runDirectory);
            return run != null && run.hasEnded() && RUNS.remove(runDirectory, run);
        }
    }

    /**
     * What an agent JVM that went away leaves: nothing held. For tests that replay an agent restart in one
     * JVM; the runs' threads, if still going, are superseded by the resumed runner's lease. Only the runs under the
     * test's own folder: test classes run in parallel in one JVM, and forgetting another's run makes its abort
     * reach nobody (AgentStopGrandchildTest failed so in CI while PlantedLinksTest ended).
     */
    static void forgetForTests(java.nio.file.Path under) {
        RUNS.keySet().removeIf(key -> java.nio.file.Path.of(key).startsWith(under));
    }
}
