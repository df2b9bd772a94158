package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.google.common.util.concurrent.ListenableFuture;
import hudson.AbortException;
import hudson.EnvVars;
import hudson.FilePath;
import hudson.model.Result;
import hudson.model.Run;
import hudson.model.TaskListener;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.results.AgentSummary;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeBuildAction;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeResultSummary;
import io.jenkins.plugins.gpusanitizer.results.VerdictResult;
import io.jenkins.plugins.gpusanitizer.testing.Changes;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jenkinsci.plugins.scriptsecurity.sandbox.whitelists.Whitelisted;
import org.jenkinsci.plugins.workflow.steps.BodyInvoker;
import org.jenkinsci.plugins.workflow.steps.StepContext;
import org.junit.jupiter.api.Test;

/**
 * The execution without a controller (issue #29, 3-5): the Pipeline's thread only schedules; the
 * preparation and the collection run as the build; the run is followed with short polls; a restart
 * (the execution saved and loaded with the program) and a reconnect (a new channel) go on with the
 * same run and collect its result once; an abort stops the run on the agent and ends the step with its
 * cause after the result is attached. The agent's answers are scripted here ({@link DurableRunTest}
 * runs the real agent side with real processes).
 */
class GpuSanitizeExecutionTest {
    private static final String WORKSPACE = "/ws/train";
    private static final ScheduledExecutorService TIMER = Executors.newScheduledThreadPool(1);
    private static final ExecutorService WORKERS = Executors.newCachedThreadPool();

    /** What the tests wait for: the agent's calls and the build log, changed on the timer's and workers' threads. */
    private final Changes changes = new Changes();

    // the waker runs after the stream's own lock is released: the waiter reads the stream holding the waker's lock
    private final ByteArrayOutputStream log = new ByteArrayOutputStream() {
        @Override
        public void write(byte[] b, int off, int len) {
            super.write(b, off, len);
            changes.changed();
        }

        @Override
        public void write(int b) {
            super.write(b);
            changes.changed();
        }
    };

    /** The agent, scripted: a queue of answers to polls; it records every call. */
    static final class ScriptedAgent implements AgentLink {
        final BlockingQueue<AgentProgress> answers = new LinkedBlockingQueue<>();
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        private final Changes changes;

        ScriptedAgent(Changes changes) {
            this.changes = changes;
        }

        private void call(String what) {
            calls.add(what);
            changes.changed();
        }

        @Override
        public void start(boolean resume) {
            call(resume ? "take-up" : "start");
        }

        @Override
        public AgentProgress poll(int offset) throws InterruptedException {
            call("poll " + offset);
            AgentProgress next = answers.poll(1, TimeUnit.SECONDS);
            return next == null ? AgentProgress.running(List.of(), offset) : next;
        }

        @Override
        public boolean stop() {
            call("stop");
            answers.add(AgentProgress.ended(List.of("[gpu-sanitize] aborted"), 9, summary(Verdict.ERROR, true), null));
            return true;
        }

        @Override
        public void forget() {
            call("forget");
        }

        @Override
        public String agent() {
            return "gpu-agent";
        }
    }

    /** Jenkins, replayed: the node comes and goes, every identity switch and recorder call is recorded. */
    final class Host implements StepHost {
        final ScriptedAgent agent = new ScriptedAgent(changes);
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final ThreadLocal<Boolean> asBuild = ThreadLocal.withInitial(() -> false);
        volatile Object channel = new Object();
        volatile boolean online = true;
        volatile VerdictResult landing = new VerdictResult(Result.SUCCESS, false, "GPU Sanitizer: PASS");

        @Override
        public ScheduledExecutorService timer() {
            return TIMER;
        }

        @Override
        public ExecutorService workers() {
            return WORKERS;
        }

        @Override
        public BuildIdentity identity() {
            return context -> {
                asBuild.set(true);
                return () -> asBuild.set(false);
            };
        }

        @Override
        public GpuSanitizeRecorder recorder(GpuSanitizeStep step) {
            return new GpuSanitizeRecorder(step) {
                @Override
                RunSpec prepare(Run<?, ?> build, FilePath workspace, EnvVars env, TaskListener listener) {
                    events.add("prepare as " + (asBuild.get() ? "the build" : "the thread"));
                    return RunSpecMapping.toSpec(step, WORKSPACE + "@tmp/gpu-sanitize/7-" + step.getId());
                }

                @Override
                VerdictResult collect(
                        Run<?, ?> build,
                        FilePath workspace,
                        EnvVars env,
                        Set<String> sensitiveVariables,
                        TaskListener listener,
                        String runDirectory,
                        AgentProgress ended,
                        boolean aborted) {
                    events.add("collect " + ended.summary().verdict() + (aborted ? " aborted" : "") + " as "
                            + (asBuild.get() ? "the build" : "the thread") + " from " + runDirectory);
                    GpuSanitizeBuildAction action =
                            new GpuSanitizeBuildAction(step.getId(), step.getName(), ended.summary());
                    action.onAttached(build);
                    doReturn(List.of(action)).when(build).getActions(GpuSanitizeBuildAction.class);
                    return aborted ? new VerdictResult(Result.ABORTED, true, "aborted") : landing;
                }
            };
        }

        @Override
        public String nodeOf(FilePath workspace) {
            return "gpu-agent";
        }

        @Override
        public FilePath workspace(String node, String path) {
            return online ? new FilePath(new File(path)) : null;
        }

        @Override
        public Object channelOf(FilePath workspace) {
            return channel;
        }

        @Override
        public AgentLink link(FilePath workspace, String agentName, RunSpec spec, EnvVars env, StepContext context) {
            events.add("link to " + workspace.getRemote());
            return agent;
        }
    }

    static AgentSummary summary(Verdict verdict, boolean aborted) {
        return AgentSummary.builder()
                .verdict(verdict)
                .defects(2)
                .suppressed(1)
                .errorsTotal(17L)
                .firstReason("2 defects")
                .faultAt("train.py:43")
                .runDirectory(WORKSPACE + "@tmp/gpu-sanitize/7-gpu-sanitizer")
                .aborted(aborted)
                .build();
    }

    /**
     * A step context that survives the Pipeline's save and load: only its key is serialized; what it gives
     * and what it was told live in this JVM, as the real context finds the build again after a restart.
     */
    static final class ReplayContext extends StepContext {
        private static final long serialVersionUID = 1L;
        private static final Map<String, Map<Class<?>, Object>> OBJECTS = new ConcurrentHashMap<>();
        private static final Map<String, CompletableFuture<Object>> OUTCOMES = new ConcurrentHashMap<>();
        private final String key = UUID.randomUUID().toString();

        ReplayContext(Map<Class<?>, Object> objects) {
            OBJECTS.put(key, new ConcurrentHashMap<>(objects));
            OUTCOMES.put(key, new CompletableFuture<>());
        }

        void remove(Class<?> type) {
            OBJECTS.get(key).remove(type);
        }

        @Override
        public <T> T get(Class<T> type) {
            return type.cast(OBJECTS.get(key).get(type));
        }

        @Override
        public void onSuccess(Object result) {
            if (!OUTCOMES.get(key).complete(result)) {
                throw new AssertionError("the step ended twice");
            }
        }

        @Override
        public void onFailure(Throwable failure) {
            if (!OUTCOMES.get(key).completeExceptionally(failure)) {
                throw new AssertionError("the step ended twice");
            }
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setResult(Result r) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ListenableFuture<Void> saveState() {
            throw new UnsupportedOperationException("the step never asks for its state to be saved");
        }

        @Override
        public BodyInvoker newBodyInvoker() {
            throw new IllegalStateException("gpuSanitize takes no body"); // as StepContext says of a step without one
        }

        /** The same context after a save and load: the key alone, as the real contexts compare. */
        @Override
        public boolean equals(Object other) {
            return other instanceof ReplayContext that && key.equals(that.key);
        }

        @Override
        public int hashCode() {
            return key.hashCode();
        }

        boolean ended() {
            return OUTCOMES.get(key).isDone();
        }

        GpuSanitizeResultSummary succeeded() throws Exception {
            return (GpuSanitizeResultSummary) OUTCOMES.get(key).get(30, TimeUnit.SECONDS);
        }

        Throwable failed() throws Exception {
            try {
                Object result = OUTCOMES.get(key).get(30, TimeUnit.SECONDS);
                throw new AssertionError("the step succeeded: " + result);
            } catch (ExecutionException e) {
                return e.getCause();
            }
        }
    }

    private ReplayContext context(Run<?, ?> build) {
        PrintStream logger = new PrintStream(log, true, StandardCharsets.UTF_8);
        return new ReplayContext(Map.of(
                Run.class,
                build,
                TaskListener.class,
                (TaskListener) () -> logger,
                FilePath.class,
                new FilePath(new File(WORKSPACE)),
                EnvVars.class,
                new EnvVars()));
    }

    private static Run<?, ?> build() {
        Run<?, ?> build = mock(Run.class);
        when(build.getUrl()).thenReturn("job/train/7/");
        return build;
    }

    /** Waits (bounded) until the condition holds: the execution works on the timer's and the workers' threads. */
    private void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        assertThat(changes.await(Duration.ofMinutes(5), condition)).as(what).isTrue();
    }

    @Test
    void startOnlySchedulesThenTheScriptGetsTheVerdictAndCounts() throws Exception {
        Host host = new Host();
        Run<?, ?> build = build();
        ReplayContext context = context(build);
        host.agent.answers.add(AgentProgress.running(List.of("[gpu-sanitize] sanitizer-memcheck started"), 1));
        host.agent.answers.add(AgentProgress.ended(List.of(), 1, summary(Verdict.PASS, false), null));
        GpuSanitizeExecution execution =
                new GpuSanitizeExecution(new GpuSanitizeStep("python3 train.py"), context, host);

        assertThat(execution.start()).as("asynchronous: the result comes later").isFalse();
        GpuSanitizeResultSummary result = context.succeeded();

        assertThat(result.getVerdict()).isEqualTo("PASS");
        assertThat(result.getDefects()).isEqualTo(2);
        assertThat(result.getErrorsTotal()).isEqualTo(17L);
        assertThat(result.getReportUrl()).isEqualTo("job/train/7/gpu-sanitizer-gpu-sanitizer/");
        assertThat(host.events)
                .containsExactly(
                        "prepare as the build",
                        "link to " + WORKSPACE,
                        "collect PASS as the build from " + WORKSPACE + "@tmp/gpu-sanitize/7-gpu-sanitizer");
        assertThat(host.agent.calls).startsWith("start", "poll 0", "poll 1").endsWith("forget");
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("[gpu-sanitize] sanitizer-memcheck started");
        verify(build, never()).setResult(any());
    }

    @Test
    void anUnstableVerdictMarksTheBuildAndAFailingOneFailsTheStep() throws Exception {
        Host host = new Host();
        host.landing = new VerdictResult(Result.UNSTABLE, false, "unstable");
        Run<?, ?> build = build();
        ReplayContext context = context(build);
        host.agent.answers.add(AgentProgress.ended(List.of(), 0, summary(Verdict.UNSTABLE, false), null));
        new GpuSanitizeExecution(new GpuSanitizeStep("python3 train.py"), context, host).start();
        assertThat(context.succeeded().getVerdict()).isEqualTo("UNSTABLE");
        verify(build).setResult(Result.UNSTABLE);

        Host failing = new Host();
        failing.landing = new VerdictResult(Result.FAILURE, true, "GPU Sanitizer: FAIL: 2 GPU defect(s)");
        ReplayContext other = context(build());
        failing.agent.answers.add(AgentProgress.ended(List.of(), 0, summary(Verdict.FAIL, false), null));
        new GpuSanitizeExecution(new GpuSanitizeStep("python3 train.py"), other, failing).start();
        assertThat(other.failed())
                .isInstanceOf(AbortException.class)
                .hasMessage("GPU Sanitizer: FAIL: 2 GPU defect(s)");
    }

    @Test
    void aContextWithoutAWorkspaceSaysSo() throws Exception {
        Host host = new Host();
        ReplayContext context = context(build());
        context.remove(FilePath.class);
        new GpuSanitizeExecution(new GpuSanitizeStep("python3 train.py"), context, host).start();
        assertThat(context.failed())
                .isInstanceOf(AbortException.class)
                .hasMessage("gpuSanitize: the step's context has no hudson.FilePath (run it inside node)");
        assertThat(host.agent.calls).isEmpty();
    }

    /**
     * A controller restart while the run goes on: the execution, saved with the program, is loaded in a new
     * JVM (its transient state gone) and resumed on a SYSTEM thread. It follows the same run (a take-up, never a
     * second start), from the progress line where it was, collects once, and acts as the build.
     */
    @Test
    void aRestartFollowsTheSameRunAndCollectsItAsTheBuild() throws Exception {
        Host before = new Host();
        Run<?, ?> build = build();
        ReplayContext context = context(build);
        before.agent.answers.add(AgentProgress.running(List.of("[gpu-sanitize] blocking started"), 3));
        GpuSanitizeExecution execution =
                new GpuSanitizeExecution(new GpuSanitizeStep("python3 train.py"), context, before);
        execution.start();
        // the first poll was answered; the controller goes down before the run ends
        await("the first poll answered", () -> before.agent.calls.size() >= 3);
        before.online = false;
        GpuSanitizeExecution loaded = AgentSide.copy(execution);

        Host after = new Host();
        after.channel = new Object();
        after.agent.answers.add(AgentProgress.ended(
                List.of("[gpu-sanitize] regression passed"), 4, summary(Verdict.FAIL, false), null));
        loaded.host(after);
        loaded.onResume();
        GpuSanitizeResultSummary result = context.succeeded();

        assertThat(loaded.isResumed()).isTrue();
        assertThat(result.getVerdict()).isEqualTo("FAIL");
        assertThat(after.events)
                .containsExactly(
                        "link to " + WORKSPACE,
                        "collect FAIL as the build from " + WORKSPACE + "@tmp/gpu-sanitize/7-gpu-sanitizer");
        assertThat(after.agent.calls).first().isEqualTo("take-up");
        assertThat(after.agent.calls).contains("poll 3").doesNotContain("start", "poll 0");
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("resumed after a restart: following the run in " + WORKSPACE)
                .contains("[gpu-sanitize] regression passed");
    }

    /** An agent reconnect: while the node is offline the step waits; over the new channel it makes a new link. */
    @Test
    void aReconnectWaitsForTheAgentThenFollowsOverTheNewChannel() throws Exception {
        Host host = new Host();
        ReplayContext context = context(build());
        host.online = false;
        GpuSanitizeExecution execution =
                new GpuSanitizeExecution(new GpuSanitizeStep("python3 train.py"), context, host);
        execution.start();
        await(
                "the step says it waits",
                () -> log.toString(StandardCharsets.UTF_8).contains("waiting for it"));
        assertThat(context.ended()).isFalse();
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("the agent is offline or not connected; the run goes on there: waiting for it to answer");
        host.channel = new Object();
        host.agent.answers.add(AgentProgress.ended(List.of(), 0, summary(Verdict.PASS, false), null));
        host.online = true;
        assertThat(context.succeeded().getVerdict()).isEqualTo("PASS");
        assertThat(host.events).filteredOn(e -> e.startsWith("link")).hasSize(1);
    }

    /** An abort stops the run on the agent, collects what it wrote, then ends the step with the abort's cause. */
    @Test
    void anAbortStopsTheRunAttachesItsResultAndEndsWithTheCause() throws Exception {
        Host host = new Host();
        Run<?, ?> build = build();
        ReplayContext context = context(build);
        GpuSanitizeExecution execution =
                new GpuSanitizeExecution(new GpuSanitizeStep("python3 train.py"), context, host);
        execution.start();
        await("the run followed", () -> host.agent.calls.contains("poll 0"));
        Exception cause = new InterruptedException("aborted by the user");
        execution.stop(cause);

        assertThat(context.failed()).isSameAs(cause);
        assertThat(host.agent.calls).contains("stop");
        assertThat(host.events)
                .contains("collect ERROR aborted as the build from " + WORKSPACE + "@tmp/gpu-sanitize/7-gpu-sanitizer");
        verify(build).setResult(Result.ABORTED);
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("abort: stopping the run on gpu-agent (waiting up to");
    }

    @Test
    void aSecondAbortEndsTheStepAtOnce() throws Exception {
        Host host = new Host();
        host.online = false; // the agent cannot be told: the first abort waits for it
        ReplayContext context = context(build());
        GpuSanitizeExecution execution =
                new GpuSanitizeExecution(new GpuSanitizeStep("python3 train.py"), context, host);
        execution.start();
        await(
                "the step waits for the agent",
                () -> log.toString(StandardCharsets.UTF_8).contains("offline"));
        execution.stop(new IOException("first"));
        assertThat(context.ended()).as("the first abort waits for the agent").isFalse();
        Exception second = new IOException("second");
        execution.stop(second);
        assertThat(context.failed()).isSameAs(second);
    }

    /** The sandbox lets a script read only whitelisted getters; the program state needs Serializable. */
    @Test
    void theSummaryIsWhitelistedAndTheExecutionSerializable() {
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
        step.setGpus("1");
        GpuSanitizeExecution loaded = AgentSide.copy(new GpuSanitizeExecution(step, context(build())));
        assertThat(loaded.step().getGpus()).isEqualTo("1");
        assertThat(loaded.blocksRestart()).as("the run survives a restart").isFalse();
    }
}
