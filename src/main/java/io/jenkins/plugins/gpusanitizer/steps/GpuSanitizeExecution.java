package io.jenkins.plugins.gpusanitizer.steps;

import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.AbortException;
import hudson.EnvVars;
import hudson.FilePath;
import hudson.Launcher;
import hudson.model.Result;
import hudson.model.Run;
import hudson.model.TaskListener;
import io.jenkins.plugins.gpusanitizer.results.ByIdResultSelector;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeResultSummary;
import io.jenkins.plugins.gpusanitizer.results.VerdictResult;
import java.util.Set;
import java.util.function.Function;
import jenkins.util.Timer;
import org.jenkinsci.plugins.workflow.actions.WarningAction;
import org.jenkinsci.plugins.workflow.graph.FlowNode;
import org.jenkinsci.plugins.workflow.steps.EnvironmentExpander;
import org.jenkinsci.plugins.workflow.steps.StepContext;
import org.jenkinsci.plugins.workflow.steps.SynchronousNonBlockingStepExecution;

/**
 * Runs one {@code gpuSanitize} on a background thread: gathers the build, workspace, listener,
 * environment and flow node from the step's context, says clearly what is missing, hands the work to
 * the {@link GpuSanitizeRecorder}, applies the verdict to the build and stage, and returns the
 * result's {@link GpuSanitizeResultSummary} to the script.
 *
 * <p>An abort does not interrupt it while the agent runs: {@link StopControl} asks the agent to stop
 * and waits (bounded) for it, so the results written so far are copied back and attached before the
 * step ends ABORTED.
 *
 * <p>Durable: the phases run detached on the agent (through the context's launcher, see {@link
 * LauncherStarter}) and keep their state in the run directory, so a controller restart does not end
 * them. Where workflow-step-api's {@code SynchronousNonBlockingStepExecution.onResume} would fail the
 * step, this one starts its thread again, which takes the run up from the run directory; and it does
 * not block a safe restart, which the detached phases survive.
 */
class GpuSanitizeExecution extends SynchronousNonBlockingStepExecution<GpuSanitizeResultSummary> {
    private static final long serialVersionUID = 1L;

    /** Kept with the program (the step is serializable): a resumed execution runs the same step again. */
    private final GpuSanitizeStep step;
    /** Makes the recorder: a seam for tests; null after a restart (then the real one). */
    private final transient Function<GpuSanitizeStep, GpuSanitizeRecorder> recorders;
    /** Made again on resume (transient state does not survive the restart). */
    private transient StopControl stopControl = new StopControl();
    /** Set by {@link #onResume}: the next run takes the run up from its directory. */
    private boolean resumed;

    GpuSanitizeExecution(GpuSanitizeStep step, StepContext context) {
        this(step, context, GpuSanitizeRecorder::new);
    }

    GpuSanitizeExecution(
            GpuSanitizeStep step, StepContext context, Function<GpuSanitizeStep, GpuSanitizeRecorder> recorders) {
        super(context);
        this.step = step;
        this.recorders = recorders;
    }

    @Override
    protected GpuSanitizeResultSummary run() throws Exception {
        GpuSanitizeResultSummary result = null;
        Exception failure = null;
        try {
            result = runStep();
        } catch (Exception e) {
            failure = e;
        } finally {
            stopControl.finished();
        }
        // an abort that StopControl took charge of ends the step with its cause, whatever happened meanwhile:
        // ending it normally would let the Pipeline go on after the user aborted it
        Throwable stopped = stopControl.cause();
        if (stopped != null) {
            Exception abort = StopControl.asException(stopped);
            if (failure != null && failure != abort) {
                abort.addSuppressed(failure);
            }
            throw abort;
        }
        if (failure != null) {
            throw failure;
        }
        return result;
    }

    private GpuSanitizeResultSummary runStep() throws Exception {
        StepContext context = getContext();
        Run<?, ?> build = required(context, Run.class);
        TaskListener listener = required(context, TaskListener.class);
        FilePath workspace = required(context, FilePath.class);
        EnvVars env = required(context, EnvVars.class);
        Set<String> sensitiveVariables = SecretMasker.sensitiveVariables(context.get(EnvironmentExpander.class), build);
        Launcher launcher = required(context, Launcher.class);
        GpuSanitizeRecorder recorder = recorders == null ? new GpuSanitizeRecorder(step) : recorders.apply(step);
        VerdictResult verdict =
                recorder.perform(build, workspace, env, sensitiveVariables, listener, launcher, resumed, stopControl);
        Throwable stopped = stopControl.cause();
        if (stopped != null) {
            build.setResult(Result.ABORTED);
            throw StopControl.asException(stopped);
        }
        if (verdict.result() == Result.UNSTABLE) {
            FlowNode node = context.get(FlowNode.class);
            if (node != null) {
                node.addOrReplaceAction(new WarningAction(verdict.result()).withMessage(verdict.message()));
            }
            build.setResult(verdict.result());
        }
        if (verdict.abort()) {
            throw new AbortException(verdict.message());
        }
        return new ByIdResultSelector(step.getId())
                .select(build)
                .map(GpuSanitizeResultSummary::of)
                .orElse(null);
    }

    /**
     * A context object the step declares in {@code getRequiredContext}: workflow-step-api checks them
     * before the step starts, so a null here means a context that lost one (say which).
     */
    private static <T> T required(StepContext context, Class<T> type) throws Exception {
        T value = context.get(type);
        if (value == null) {
            throw new AbortException("gpuSanitize: the step's context has no " + type.getName()
                    + (type == FilePath.class ? " (run it inside node)" : ""));
        }
        return value;
    }

    /**
     * After a controller restart: workflow-step-api's version fails the step; the run's phases are still
     * going on detached, so start the thread again and let it take them up from the run directory.
     */
    @Override
    public void onResume() {
        markResumed();
        try {
            start();
        } catch (Exception e) {
            getContext().onFailure(e);
        }
    }

    /** What a restart restores before the thread starts again: the next run takes the run up, with a new stop control. */
    void markResumed() {
        resumed = true;
        stopControl = new StopControl();
    }

    boolean isResumed() {
        return resumed;
    }

    GpuSanitizeStep step() {
        return step;
    }

    /** The phases survive a restart, so a safe restart need not wait for them (the parent's answer is yes). */
    @Override
    public boolean blocksRestart() {
        return false;
    }

    @Override
    public void stop(@NonNull Throwable cause) throws Exception {
        // while the agent runs: ask it to stop and let run() finish with the partial results;
        // before or after that (or on a second abort): the default, interrupt and end at once
        StopControl control = stopControl;
        if (control == null
                || !control.stop(cause, Timer.get(), () -> getContext().onFailure(cause))) {
            super.stop(cause);
        }
    }
}
