package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.results.AgentSummary;
import io.jenkins.plugins.gpusanitizer.results.VerdictResult;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #29, 3-4: the run survives its controller and its channel. Real processes and the stand-in GPU
 * tools run the far out-of-bounds job (FAIL, fault at train_lstm.py:32); the job of one phase waits at a
 * gate. While it waits the channel is cut (a controller restart, an agent reconnect): the follower's
 * calls fail and it waits, the phase goes on, a process the runner must start meanwhile waits for a
 * controller. Then the follower is saved and loaded as the Pipeline does, resumed over a new channel
 * with a new controller's starter, the gate opens, and the run ends with the same report as one whose
 * channel never broke. The agent JVM's own restart is replayed too: the agent forgets the run, the
 * follower takes it up from the run directory.
 */
class DurableRunTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final PrintStream logger = new PrintStream(log, true, StandardCharsets.UTF_8);

    @AfterEach
    void agentForgets() {
        AgentRun.forgetForTests(dir);
    }

    /** The job's mode for each phase (see fake-tools/README.md). */
    private static String mode(String phase) {
        return switch (phase) {
            case "sanitizer" -> "memcheck-app";
            case "blocking" -> "blocking";
            default -> "async";
        };
    }

    private final class Case {
        final FakeGpu gpu;
        final RunSpec spec;
        final Path workspace;
        final Path caseDir;
        final Path root;
        final String mode;

        Case(String name, String phase) throws IOException {
            this.root = dir.resolve(name);
            this.mode = mode(phase);
            this.gpu = new FakeGpu(root).farOob().put(mode + ".gate", "");
            this.caseDir = root.resolve("case");
            this.workspace = root.resolve("workspace with space");
            String runDirectory = root.resolve("workspace with space@tmp/gpu-sanitize/7-gpu-sanitizer")
                    .toString();
            RunSpec spec = RunSpecMapping.toSpec(new GpuSanitizeStep("python3 train.py --bug far"), runDirectory)
                    .killGraceSeconds(1)
                    .toolWriteGraceSeconds(5)
                    .samplerIntervalMs(100);
            // a gated regression run must not be stopped at its target (twice the blocking run's failure time, a
            // second here) while it waits at the gate: on a loaded machine the test opened the gate after it, and the
            // run ended before its job failed (no innocent line); a given duration, which the job ends well before
            this.spec = phase.equals("regression") ? spec.regressionSeconds(600.0) : spec;
        }

        AgentSide.Link link(AgentSide.Controller controller) {
            return new AgentSide.Link(workspace.toFile(), spec, gpu.env(), controller);
        }

        /** The gated job's pid once it waits at the gate, after ticking the follower until then. */
        long waitAtGate(RunFollower follower, AgentSide.Link link) throws Exception {
            Path gated = root.resolve("log/gated-" + mode + ".txt");
            // the first tick starts the run; it goes on in the agent's thread whether the follower ticks or not
            assertThat(follower.tick(link, logger).ended()).isNull();
            String pid = FileWait.content(gated, Duration.ofMinutes(2));
            assertThat(pid).as(mode + " job at its gate").isNotEmpty();
            assertThat(follower.tick(link, logger).ended())
                    .as("the run ended before its " + mode + " job reached the gate")
                    .isNull();
            return Long.parseLong(pid);
        }

        void open() throws IOException {
            Files.writeString(caseDir.resolve(mode + ".open"), "");
        }

        AgentProgress followToTheEnd(RunFollower follower, AgentLink link) throws Exception {
            // one tick delivers what is asked (a start, a stop); then the agent's run ends by itself
            RunFollower.Outcome outcome = follower.tick(link, logger);
            if (outcome.ended() != null) {
                return outcome.ended();
            }
            assertThat(AgentRun.awaitEnd(spec.outDir(), 3, TimeUnit.MINUTES))
                    .as("the run ended; log:\n" + log)
                    .isTrue();
            for (int i = 0; i < 100; i++) { // the lines left, then the end
                outcome = follower.tick(link, logger);
                if (outcome.ended() != null) {
                    return outcome.ended();
                }
            }
            throw new AssertionError("the run ended but the follower did not see it; log:\n" + log);
        }
    }

    /**
     * The run whose channel never broke, once for the class: what {@link #assertSameReport} compares (the verdict, the
     * defects, the counts and lines the tools reported) does not depend on which phase waited at its gate, so one run
     * (the blocking job gated, as in the agent's restart) stands for every test's; each test used to run its own, three
     * of four the same.
     */
    private static AgentSummary reference;

    private AgentSummary uninterrupted() throws Exception {
        synchronized (DurableRunTest.class) {
            if (reference == null) {
                reference = uninterrupted("blocking");
            }
            return reference;
        }
    }

    private AgentSummary uninterrupted(String phase) throws Exception {
        Case run = new Case("uninterrupted-" + phase, phase);
        RunFollower follower = new RunFollower(run.spec.outDir(), false);
        AgentSide.Link link = run.link(new AgentSide.Controller());
        run.waitAtGate(follower, link);
        run.open();
        AgentProgress ended = run.followToTheEnd(follower, link);
        assertThat(ended.failure()).isNull();
        return ended.summary();
    }

    @ParameterizedTest
    @ValueSource(strings = {"sanitizer", "blocking", "regression"})
    void aControllerRestartInAPhaseLosesNothing(String phase) throws Exception {
        AgentSummary expected = uninterrupted();
        assertThat(expected.verdict()).isEqualTo(Verdict.FAIL);

        Case run = new Case("restart-" + phase, phase);
        RunFollower follower = new RunFollower(run.spec.outDir(), false);
        AgentSide.Controller first = new AgentSide.Controller();
        AgentSide.Link before = run.link(first);
        long pid = run.waitAtGate(follower, before);

        before.cut(); // the controller goes down: remoting closes the channel
        for (int i = 0; i < 3; i++) {
            assertThat(follower.tick(before, logger).ended()).isNull();
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("the run goes on there: waiting for it to answer");
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive))
                .as("the " + phase + " job runs on without its controller")
                .contains(true);
        assertThat(AgentRun.running(run.spec.outDir())).isTrue();

        // the Pipeline saved the step with the program; a new controller loads it and resumes it
        RunFollower resumed = AgentSide.copy(follower);
        resumed.resumed();
        AgentSide.Controller second = new AgentSide.Controller();
        AgentSide.Link after = run.link(second);
        run.open();
        AgentProgress ended = run.followToTheEnd(resumed, after);

        assertThat(ended.failure()).isNull();
        assertSameReport(ended.summary(), expected);
        assertThat(first.refusedWhileDown.get() + second.started.get())
                .as("what the runner had to start after the cut waited for the new controller")
                .isGreaterThanOrEqualTo(phase.equals("regression") ? 0 : 1);
        assertThat(run.gpu.logged("calls.txt").lines().filter(line -> line.startsWith("python3 train.py")))
                .as("each phase's job started once: none again after the restart")
                .hasSize(3);
    }

    @Test
    void anAgentJvmRestartInAPhaseIsTakenUpFromTheRunDirectory() throws Exception {
        AgentSummary expected = uninterrupted();
        // the line GpuSanitizeStepITest.farOutOfBoundsFailsTheBuildWithTheRealLine reads in the build log, and its
        // count, from the same job through the step's own spec (each run in its copy, the probe on)
        assertThat(VerdictResult.of(expected, "GPU Sanitizer").message())
                .startsWith("GPU Sanitizer: FAIL: 1 GPU defect(s) at train_lstm.py:32 (buggy_scale) (reported at"
                        + " train_lstm.py:99")
                .doesNotContain("Host Frame");
        assertThat(expected.errorsTotal()).isEqualTo(1603L);

        Case run = new Case("agent-restart", "blocking");
        RunFollower follower = new RunFollower(run.spec.outDir(), false);
        AgentSide.Link before = run.link(new AgentSide.Controller());
        long pid = run.waitAtGate(follower, before);

        before.cut();
        AgentRun.forgetForTests(dir); // the agent's JVM went away; its detached phases did not
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);

        AgentSide.Link after = run.link(new AgentSide.Controller());
        RunFollower.Outcome next = follower.tick(after, logger);
        assertThat(next.ended()).isNull();
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("no longer holds the run (its JVM restarted): taking it up from");
        run.open();
        AgentProgress ended = run.followToTheEnd(follower, after);

        assertThat(ended.failure()).isNull();
        assertSameReport(ended.summary(), expected);
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("blocking followed again");
        assertThat(run.gpu.logged("calls.txt").lines().filter(line -> line.startsWith("python3 train.py")))
                .as("the blocking job was followed, not started again")
                .hasSize(3);
    }

    @Test
    void anAbortStopsTheRunAndTheReportStillComes() throws Exception {
        Case run = new Case("abort", "blocking");
        RunFollower follower = new RunFollower(run.spec.outDir(), false);
        AgentSide.Link link = run.link(new AgentSide.Controller());
        long pid = run.waitAtGate(follower, link);

        follower.askToStop();
        AgentProgress ended = run.followToTheEnd(follower, link);

        assertThat(ended.summary().aborted()).isTrue();
        assertThat(Path.of(run.spec.outDir(), "report.json")).isNotEmptyFile();
        // killed (a zombie its parent has not reaped yet counts as ended)
        assertThat(Processes.runningAfter(Duration.ofMinutes(1), pid)).isEmpty();
        assertThat(AgentRun.running(run.spec.outDir())).isFalse();
        assertThat(link.stop()).as("nothing left to stop").isFalse();
    }

    @Test
    void aStartWhoseAnswerWasLostIsFollowedNotSentTwice() throws Exception {
        Case run = new Case("lost-start", "blocking");
        AgentSide.Controller controller = new AgentSide.Controller();
        AgentSide.Link link = run.link(controller);
        RunFollower follower = new RunFollower(run.spec.outDir(), false);
        // the start reached the agent, its answer did not
        link.start(false);
        RunFollower.Outcome outcome = follower.tick(
                new AgentLink() {
                    @Override
                    public void start(boolean resume) throws IOException {
                        throw new IOException("hudson.remoting.ChannelClosedException: channel is already closed");
                    }

                    @Override
                    public AgentProgress poll(int offset) {
                        throw new AssertionError();
                    }

                    @Override
                    public boolean stop() {
                        throw new AssertionError();
                    }

                    @Override
                    public void forget() {}

                    @Override
                    public String agent() {
                        return "gpu-agent";
                    }
                },
                logger);
        assertThat(outcome.ended()).isNull();
        run.waitAtGate(follower, link);
        run.open();
        AgentProgress ended = run.followToTheEnd(follower, link);
        assertThat(ended.failure())
                .as("no second start refused as 'already going on'")
                .isNull();
        assertThat(ended.summary().verdict()).isEqualTo(Verdict.FAIL);
    }

    private static void assertSameReport(AgentSummary actual, AgentSummary expected) {
        assertThat(actual.verdict()).isEqualTo(expected.verdict());
        assertThat(actual.defects()).isEqualTo(expected.defects());
        assertThat(actual.errorsTotal()).isEqualTo(expected.errorsTotal());
        assertThat(actual.faultAt()).isEqualTo(expected.faultAt()).contains("train_lstm.py:32");
        assertThat(actual.reportedAt()).isEqualTo(expected.reportedAt());
        assertThat(actual.defectsByTool()).isEqualTo(expected.defectsByTool());
        assertThat(actual.aborted()).isFalse();
        assertThat(Map.copyOf(actual.defectsByTool())).isNotEmpty();
    }
}
