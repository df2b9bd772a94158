package io.jenkins.plugins.gpusanitizer.steps;

import edu.umd.cs.findbugs.annotations.NonNull;
import edu.umd.cs.findbugs.annotations.SuppressFBWarnings;
import hudson.AbortException;
import hudson.EnvVars;
import hudson.FilePath;
import hudson.model.Result;
import hudson.model.Run;
import hudson.model.TaskListener;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.results.ByIdResultSelector;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeResultSummary;
import io.jenkins.plugins.gpusanitizer.results.VerdictResult;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jenkinsci.plugins.workflow.actions.WarningAction;
import org.jenkinsci.plugins.workflow.graph.FlowNode;
import org.jenkinsci.plugins.workflow.steps.EnvironmentExpander;
import org.jenkinsci.plugins.workflow.steps.StepContext;
import org.jenkinsci.plugins.workflow.steps.StepExecution;

/**
 * One {@code gpuSanitize}, durable the way durable-task's {@code sh} step is: no thread and no remote
 * call is held while the job runs. {@link #start} prepares the run off the Pipeline's thread; the run
 * goes on in the agent's JVM ({@link AgentRun}) and its phases detached; the {@link RunFollower}
 * follows it with short calls on the timer; once it ended, the {@link GpuSanitizeRecorder} collects the
 * evidence and the verdict lands on the build. After a controller restart, {@link #onResume} only
 * starts following again; while the agent is away (a reconnect) the follower waits for it.
 *
 * <p>Everything off the Pipeline's thread acts as the build ({@link BuildIdentity}), not as the thread:
 * after a restart the threads are SYSTEM's.
 *
 * <p>An abort asks the agent to stop the run (its runner kills the job's tree in the order the tool needs
 * and writes the report), follows it to its end and attaches what it found, then ends the step with the
 * abort's cause; bounded: past the grace the step ends with the cause whatever happens, and a second
 * abort ends it at once.
 */
class GpuSanitizeExecution extends StepExecution {
    private static final long serialVersionUID = 2L;

    /** After the agent's own kill and write graces: time for the stop request and the answer to travel. */
    static final int STOP_MARGIN_SECONDS = 30;

    /** Kept with the program (the step is serializable): the run's settings. */
    private final GpuSanitizeStep step;
    /** Set once prepared: the run on the agent, where its workspace is, and how far it was followed. */
    private RunSpec spec;

    private String node;
    private String workspacePath;
    /** Volatile: set by the preparing worker, read by the timer and by stop(). */
    private volatile RunFollower follower;
    /** The abort's cause once the user aborted. */
    private Throwable stopCause;

    private boolean resumed;

    private transient StepHost host;
    private transient AgentLink link;
    /** The channel {@link #link} goes over. */
    private transient Object linkChannel;

    private transient ScheduledFuture<?> next;

    @SuppressFBWarnings(
            value = "SE_TRANSIENT_FIELD_NOT_RESTORED",
            justification = "false after a restart on purpose: onResume follows the run again")
    private transient boolean over;

    GpuSanitizeExecution(GpuSanitizeStep step, StepContext context) {
        this(step, context, null);
    }

    /** @param host what it needs of Jenkins; null: Jenkins itself ({@link StepHost#JENKINS}) */
    GpuSanitizeExecution(GpuSanitizeStep step, StepContext context, StepHost host) {
        super(context);
        this.step = step;
        this.host = host;
    }

    /** On the Pipeline's thread: no I/O here; the preparation runs on a worker. */
    @Override
    public boolean start() {
        host().workers().submit(this::prepare);
        return false;
    }

    /** After a controller restart: follow the run again from where the saved state says. */
    @Override
    public void onResume() {
        synchronized (this) {
            resumed = true;
            link = null;
            over = false;
        }
        if (follower == null) {
            // the restart came before the run was prepared: nothing ran on the agent yet
            host().workers().submit(this::prepare);
            return;
        }
        follower.resumed();
        log("resumed after a restart: following the run in " + follower.runDirectory());
        schedule(0);
    }

    @Override
    public void stop(@NonNull Throwable cause) {
        RunFollower following;
        synchronized (this) {
            if (over) {
                return;
            }
            if (stopCause != null || follower == null) {
                // a second abort (the user insists), or nothing started on the agent yet: end now
                over = true;
                cancelNext();
                getContext().onFailure(cause);
                return;
            }
            stopCause = cause;
            following = follower;
        }
        long grace = spec.killGraceSeconds() + spec.toolWriteGraceSeconds() + STOP_MARGIN_SECONDS;
        log("abort: stopping the run on " + (node == null || node.isEmpty() ? "the controller" : node)
                + " (waiting up to " + grace + " s for compute-sanitizer to write what it found)");
        following.askToStop();
        schedule(0);
        host().timer().schedule(() -> endIfStillRunning(cause), grace, TimeUnit.SECONDS);
    }

    @Override
    public String getStatus() {
        RunFollower f = follower;
        return f == null ? "preparing the run" : "following the run in " + f.runDirectory();
    }

    /** The run survives a restart (the agent holds it; its phases are detached): a safe restart need not wait. */
    @Override
    public boolean blocksRestart() {
        return false;
    }

    boolean isResumed() {
        return resumed;
    }

    GpuSanitizeStep step() {
        return step;
    }

    /** For tests that replay a restart: the deserialized execution gets its host again. */
    void host(StepHost host) {
        this.host = host;
    }

    private StepHost host() {
        if (host == null) {
            host = StepHost.JENKINS;
        }
        return host;
    }

    private GpuSanitizeRecorder recorder() {
        return host().recorder(step);
    }

    private void prepare() {
        try (AutoCloseable acting = host().identity().actAs(getContext())) {
            StepContext context = getContext();
            Run<?, ?> build = required(context, Run.class);
            TaskListener listener = required(context, TaskListener.class);
            FilePath workspace = required(context, FilePath.class);
            EnvVars env = required(context, EnvVars.class);
            RunSpec prepared = recorder().prepare(build, workspace, env, listener);
            // the agent masks what it writes too (report, run.json, progress): the build's sensitive variables
            Set<String> masked = new TreeSet<>(prepared.maskEnv());
            masked.addAll(SecretMasker.sensitiveVariables(context.get(EnvironmentExpander.class), build));
            prepared.maskEnv(masked);
            String agent = host().nodeOf(workspace);
            synchronized (this) {
                if (over) {
                    return; // aborted while preparing
                }
                spec = prepared;
                node = agent;
                workspacePath = workspace.getRemote();
                follower = new RunFollower(prepared.outDir(), resumed);
            }
            schedule(0);
        } catch (Exception e) {
            end(e);
        }
    }

    /** One poll, on the timer. */
    private void tick() {
        RunFollower f;
        synchronized (this) {
            if (over) {
                return;
            }
            f = follower;
        }
        try {
            RunFollower.Outcome outcome = f.tick(link(), logger());
            if (outcome.ended() == null) {
                schedule(outcome.delayMillis());
            } else {
                host().workers().submit(() -> collect(outcome.ended()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            schedule(RunFollower.AWAY_DELAY_MILLIS); // the timer's thread, interrupted: try again
        } catch (Exception e) {
            end(e);
        }
    }

    /** The link over the workspace's current channel, made anew after a reconnect; null while the agent is away. */
    private AgentLink link() throws IOException, InterruptedException {
        FilePath workspace = host().workspace(node, workspacePath);
        if (workspace == null) {
            link = null;
            return null;
        }
        Object channel = host().channelOf(workspace);
        if (link == null || linkChannel != channel) {
            StepContext context = getContext();
            EnvVars env = required(context, EnvVars.class);
            link = host().link(workspace, GpuSanitizeRecorder.agentName(env), spec, env, context);
            linkChannel = channel;
        }
        return link;
    }

    /** On a worker, once the run ended on the agent: the evidence, the result, the verdict. */
    private void collect(AgentProgress ended) {
        Throwable cause;
        synchronized (this) {
            if (over) {
                return;
            }
            cause = stopCause;
        }
        try (AutoCloseable acting = host().identity().actAs(getContext())) {
            StepContext context = getContext();
            Run<?, ?> build = required(context, Run.class);
            TaskListener listener = required(context, TaskListener.class);
            EnvVars env = required(context, EnvVars.class);
            Set<String> sensitive = SecretMasker.sensitiveVariables(context.get(EnvironmentExpander.class), build);
            FilePath workspace = host().workspace(node, workspacePath);
            VerdictResult verdict =
                    recorder().collect(build, workspace, env, sensitive, listener, spec.outDir(), ended, cause != null);
            forget();
            if (cause != null) {
                build.setResult(Result.ABORTED);
                end(cause);
                return;
            }
            land(build, verdict);
        } catch (Exception e) {
            end(cause != null ? cause : e);
        }
    }

    private void land(Run<?, ?> build, VerdictResult verdict) throws IOException, InterruptedException {
        StepContext context = getContext();
        if (verdict.result() == Result.UNSTABLE) {
            FlowNode node = context.get(FlowNode.class);
            if (node != null) {
                node.addOrReplaceAction(new WarningAction(verdict.result()).withMessage(verdict.message()));
            }
            build.setResult(verdict.result());
        }
        if (verdict.abort()) {
            end(new AbortException(verdict.message()));
            return;
        }
        GpuSanitizeResultSummary summary = new ByIdResultSelector(step.getId())
                .select(build)
                .map(GpuSanitizeResultSummary::of)
                .orElse(null);
        synchronized (this) {
            if (over) {
                return;
            }
            over = true;
        }
        context.onSuccess(summary);
    }

    /** The agent may let the collected run go (best effort: an agent that restarted has already). */
    private void forget() {
        AgentLink current = link;
        if (current != null) {
            try {
                current.forget();
            } catch (IOException | RuntimeException e) {
                // the run's entry goes with the agent's JVM
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Past the abort's grace: the step ends with its cause, followed to the end or not. */
    private void endIfStillRunning(Throwable cause) {
        synchronized (this) {
            if (over) {
                return;
            }
        }
        log("the run did not end within the abort's grace: the step ends without its results");
        end(cause);
    }

    private void end(Throwable failure) {
        synchronized (this) {
            if (over) {
                return;
            }
            over = true;
            cancelNext();
        }
        getContext().onFailure(failure);
    }

    private synchronized void schedule(long delayMillis) {
        if (!over) {
            cancelNext();
            next = host().timer().schedule(this::tick, delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void cancelNext() {
        if (next != null) {
            next.cancel(false);
            next = null;
        }
    }

    private PrintStream logger() {
        try {
            TaskListener listener = getContext().get(TaskListener.class);
            if (listener != null) {
                return listener.getLogger();
            }
        } catch (IOException e) {
            // no log to write to: the lines are lost, the run is not
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new PrintStream(java.io.OutputStream.nullOutputStream(), true, java.nio.charset.StandardCharsets.UTF_8);
    }

    private void log(String message) {
        logger().println("[gpu-sanitize] " + message);
    }

    /**
     * A context object the step declares in {@code getRequiredContext}: workflow-step-api checks them
     * before the step starts, so a null here means a context that lost one (say which).
     */
    static <T> T required(StepContext context, Class<T> type) throws IOException, InterruptedException {
        T value = context.get(type);
        if (value == null) {
            throw new AbortException("gpuSanitize: the step's context has no " + type.getName()
                    + (type == FilePath.class ? " (run it inside node)" : ""));
        }
        return value;
    }
}
