package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import hudson.AbortException;
import hudson.EnvVars;
import hudson.FilePath;
import hudson.Launcher;
import hudson.model.Result;
import hudson.model.Run;
import hudson.model.TaskListener;
import io.jenkins.plugins.gpusanitizer.results.AgentSummary;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeBuildAction;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeResultSummary;
import io.jenkins.plugins.gpusanitizer.results.VerdictResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jenkinsci.plugins.scriptsecurity.sandbox.whitelists.Whitelisted;
import org.jenkinsci.plugins.workflow.steps.StepContext;
import org.junit.jupiter.api.Test;

/**
 * The thin execution (issue #16, 2): it gathers the context, lets the recorder run, applies the verdict
 * and returns the result's summary to the script. The recorder is a stand-in that attaches a result,
 * as the real one does after the agent's run.
 */
class GpuSanitizeExecutionTest {
    private static final File WORKSPACE = new File("/ws");

    /** A recorder that attaches a result of the given verdict and returns how it lands on the build. */
    private static GpuSanitizeRecorder recorder(GpuSanitizeStep step, String verdict, VerdictResult landing) {
        return recorder(step, verdict, landing, resume -> {});
    }

    private static GpuSanitizeRecorder recorder(
            GpuSanitizeStep step, String verdict, VerdictResult landing, Consumer<Boolean> resumeSeen) {
        return new GpuSanitizeRecorder(step) {
            @Override
            VerdictResult perform(
                    Run<?, ?> build,
                    FilePath workspace,
                    EnvVars env,
                    Set<String> sensitiveVariables,
                    TaskListener listener,
                    Launcher launcher,
                    boolean resume,
                    StopControl stop) {
                assertThat(workspace.getRemote()).isEqualTo(WORKSPACE.getPath());
                resumeSeen.accept(resume);
                GpuSanitizeBuildAction action = new GpuSanitizeBuildAction(
                        step.getId(),
                        step.getName(),
                        new AgentSummary(
                                verdict, 2, 1, 17L, "2 defects", null, null, "train.py:43", "/r", Map.of(), false));
                action.onAttached(build);
                doReturn(List.of(action)).when(build).getActions(GpuSanitizeBuildAction.class);
                return landing;
            }
        };
    }

    private static StepContext context(Run<?, ?> build) throws Exception {
        StepContext context = mock(StepContext.class);
        doReturn(build).when(context).get(Run.class);
        doReturn((TaskListener) () -> System.out).when(context).get(TaskListener.class);
        doReturn(new FilePath(WORKSPACE)).when(context).get(FilePath.class);
        doReturn(new EnvVars()).when(context).get(EnvVars.class);
        doReturn(mock(Launcher.class)).when(context).get(Launcher.class);
        return context;
    }

    private static Run<?, ?> build() {
        Run<?, ?> build = mock(Run.class);
        when(build.getUrl()).thenReturn("job/train/7/");
        return build;
    }

    @Test
    void theScriptGetsTheVerdictAndCounts() throws Exception {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py");
        Run<?, ?> build = build();
        GpuSanitizeResultSummary result = new GpuSanitizeExecution(
                        step,
                        context(build),
                        s -> recorder(s, "PASS", new VerdictResult(Result.SUCCESS, false, "GPU Sanitizer: PASS")))
                .run();
        assertThat(result.getVerdict()).isEqualTo("PASS");
        assertThat(result.getDefects()).isEqualTo(2);
        assertThat(result.getSuppressed()).isEqualTo(1);
        assertThat(result.getErrorsTotal()).isEqualTo(17L);
        assertThat(result.getFaultAt()).isEqualTo("train.py:43");
        assertThat(result.getId()).isEqualTo("gpu-sanitizer");
        assertThat(result.getReportUrl()).isEqualTo("job/train/7/gpu-sanitizer-gpu-sanitizer/");
        verify(build, never()).setResult(any());
    }

    @Test
    void anUnstableVerdictMarksTheBuildAndStillReturnsTheSummary() throws Exception {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py");
        step.setId("memcheck");
        Run<?, ?> build = build();
        GpuSanitizeResultSummary result = new GpuSanitizeExecution(
                        step,
                        context(build),
                        s -> recorder(s, "UNSTABLE", new VerdictResult(Result.UNSTABLE, false, "unstable")))
                .run();
        assertThat(result.getVerdict()).isEqualTo("UNSTABLE");
        assertThat(result.getId()).isEqualTo("memcheck");
        verify(build).setResult(Result.UNSTABLE);
    }

    @Test
    void aFailingVerdictFailsTheStepWithItsMessage() throws Exception {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py");
        GpuSanitizeExecution execution = new GpuSanitizeExecution(
                step,
                context(build()),
                s -> recorder(
                        s, "FAIL", new VerdictResult(Result.FAILURE, true, "GPU Sanitizer: FAIL: 2 GPU defect(s)")));
        assertThatThrownBy(execution::run)
                .isInstanceOf(AbortException.class)
                .hasMessage("GPU Sanitizer: FAIL: 2 GPU defect(s)");
    }

    @Test
    void aContextWithoutAWorkspaceSaysSo() throws Exception {
        StepContext context = context(build());
        doReturn(null).when(context).get(FilePath.class);
        GpuSanitizeExecution execution = new GpuSanitizeExecution(
                new GpuSanitizeStep("python3 train.py"),
                context,
                s -> recorder(s, "PASS", new VerdictResult(Result.SUCCESS, false, "PASS")));
        assertThatThrownBy(execution::run)
                .isInstanceOf(AbortException.class)
                .hasMessage("gpuSanitize: the step's context has no hudson.FilePath (run it inside node)");
    }

    /** The sandbox lets a script read only whitelisted getters; the program state needs Serializable. */
    @Test
    void theSummaryIsWhitelistedAndSerializable() throws Exception {
        for (Method getter : GpuSanitizeResultSummary.class.getDeclaredMethods()) {
            if (Modifier.isPublic(getter.getModifiers())
                    && !Modifier.isStatic(getter.getModifiers())
                    && getter.getName().startsWith("get")) {
                assertThat(getter.isAnnotationPresent(Whitelisted.class))
                        .as(getter.getName())
                        .isTrue();
            }
        }
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py");
        GpuSanitizeResultSummary result = new GpuSanitizeExecution(
                        step,
                        context(build()),
                        s -> recorder(s, "PASS", new VerdictResult(Result.SUCCESS, false, "PASS")))
                .run();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(result);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            GpuSanitizeResultSummary copy = (GpuSanitizeResultSummary) in.readObject();
            assertThat(copy.getVerdict()).isEqualTo("PASS");
            assertThat(copy.getReportUrl()).isEqualTo(result.getReportUrl());
        }
    }

    /**
     * A restart as the CPS program makes it: the execution is written out with the program and read back
     * in a new controller JVM (transient state gone), then resumed. It must still hold its step, and its
     * next run must take the run up from the run directory (resume) instead of starting it again.
     */
    @Test
    void anExecutionReadBackAfterARestartResumesTheSameStep() throws Exception {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py");
        step.setGpus("1");
        StepContext context = mock(StepContext.class, withSettings().serializable());
        GpuSanitizeExecution before = new GpuSanitizeExecution(step, context);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(before);
        }
        GpuSanitizeExecution after;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            after = (GpuSanitizeExecution) in.readObject();
        }
        assertThat(after.isResumed()).isFalse();
        after.markResumed();
        assertThat(after.isResumed()).isTrue();
        assertThat(after.step().getCommand()).isEqualTo("python3 train.py");
        assertThat(after.step().getGpus()).isEqualTo("1");
        assertThat(after.blocksRestart())
                .as("the detached phases survive a restart")
                .isFalse();

        // the resumed run asks the recorder to take the run up
        Run<?, ?> build = build();
        boolean[] resumedRun = {false};
        GpuSanitizeExecution resumed = new GpuSanitizeExecution(
                step,
                context(build),
                s -> recorder(
                        s, "PASS", new VerdictResult(Result.SUCCESS, false, "PASS"), seen -> resumedRun[0] = seen));
        resumed.markResumed();
        resumed.run();
        assertThat(resumedRun[0]).isTrue();
    }
}
