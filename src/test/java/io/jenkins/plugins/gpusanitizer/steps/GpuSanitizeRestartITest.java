package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import hudson.model.Computer;
import hudson.model.Item;
import hudson.model.Result;
import hudson.model.Slave;
import hudson.model.User;
import hudson.slaves.EnvironmentVariablesNodeProperty;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeBuildAction;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jenkins.model.Jenkins;
import jenkins.security.QueueItemAuthenticatorConfiguration;
import org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition;
import org.jenkinsci.plugins.workflow.job.WorkflowJob;
import org.jenkinsci.plugins.workflow.job.WorkflowRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.jvnet.hudson.test.JenkinsRule;
import org.jvnet.hudson.test.MockAuthorizationStrategy;
import org.jvnet.hudson.test.MockQueueItemAuthenticator;
import org.jvnet.hudson.test.junit.jupiter.InboundAgentExtension;
import org.jvnet.hudson.test.junit.jupiter.JenkinsSessionExtension;

/**
 * A controller restart in the middle of the blocking phase, on an inbound agent whose JVM outlives the
 * controller (as Kubernetes and WebSocket agents do): the run goes on in the agent's JVM, the job keeps
 * running, the resumed step follows the same run once the agent has reconnected and the build ends with
 * the same finding as without the restart; each phase's job started once. The second test shows the
 * resumed step still acting as the build: the target branch the build may not read stays unread.
 * Runs only in the real plugin build (jenkins-test-harness is not on Maven Central); {@link
 * DurableRunTest} and {@link GpuSanitizeExecutionTest} replay the same paths here.
 */
class GpuSanitizeRestartITest {
    @RegisterExtension
    private final JenkinsSessionExtension sessions = new JenkinsSessionExtension();

    @RegisterExtension
    private final InboundAgentExtension inboundAgents = new InboundAgentExtension();

    @TempDir
    Path dir;

    /** An inbound agent labelled gpu whose jobs see the stand-in GPU tools. */
    private void gpuAgent(JenkinsRule j, FakeGpu gpu) throws Exception {
        Slave agent = inboundAgents.createAgent(
                j,
                InboundAgentExtension.Options.newBuilder()
                        .name("gpu-agent")
                        .label("gpu")
                        .build());
        agent.getNodeProperties()
                .add(new EnvironmentVariablesNodeProperty(gpu.env().entrySet().stream()
                        .map(e -> new EnvironmentVariablesNodeProperty.Entry(e.getKey(), e.getValue()))
                        .toList()));
    }

    @Test
    void aRestartDuringAPhaseFollowsTheSameRun() throws Throwable {
        FakeGpu gpu = new FakeGpu(dir).farOob().put("blocking.gate", "");
        sessions.then(j -> {
            gpuAgent(j, gpu);
            WorkflowJob p = j.createProject(WorkflowJob.class, "restart");
            p.setDefinition(
                    new CpsFlowDefinition("node('gpu') { gpuSanitize command: 'python3 train.py --bug far' }", true));
            WorkflowRun b = p.scheduleBuild2(0).waitForStart();
            j.waitForMessage("blocking started", b);
            // the job waits at its gate: the restart comes in the middle of the phase
            assertThat(FileWait.all(Duration.ofMinutes(2), dir.resolve("log/gated-blocking.txt")))
                    .as("the blocking job waits at its gate")
                    .isTrue();
        });
        sessions.then(j -> {
            Files.writeString(dir.resolve("case/blocking.open"), "");
            WorkflowJob p = j.jenkins.getItemByFullName("restart", WorkflowJob.class);
            WorkflowRun b = p.getBuildByNumber(1);
            j.assertBuildStatus(Result.FAILURE, j.waitForCompletion(b));
            j.assertLogContains("resumed after a restart: following the run in", b);
            GpuSanitizeBuildAction action = b.getAction(GpuSanitizeBuildAction.class);
            assertThat(action.getVerdict()).isEqualTo("FAIL");
            assertThat(action.getReport().diagnosis().faultAt().line()).isEqualTo(32);
            assertThat(gpu.logged("calls.txt").lines().filter(line -> line.startsWith("python3 train.py")))
                    .as("memcheck, blocking and regression started once each")
                    .hasSize(3);
        });
    }

    @Test
    void aResumedStepStillActsAsTheBuild() throws Throwable {
        FakeGpu gpu = new FakeGpu(dir).farOob().put("blocking.gate", "");
        String jenkinsfile = "node('gpu') { gpuSanitize command: 'python3 train.py --bug far', failOnNewOnly: true }";
        sessions.then(j -> {
            gpuAgent(j, gpu);
            WorkflowJob main = j.createProject(WorkflowJob.class, "main");
            main.setDefinition(new CpsFlowDefinition(jenkinsfile, true));
            Files.writeString(dir.resolve("case/blocking.open"), "");
            j.assertBuildStatus(Result.FAILURE, main.scheduleBuild2(0));
            Files.delete(dir.resolve("case/blocking.open"));
            // main's blocking job passed the gate and left its pid file; no job runs now, so once this is gone the
            // file can only come from PR-1's blocking job (deleting it after "blocking started" raced with that job)
            Files.deleteIfExists(dir.resolve("log/gated-blocking.txt"));
            WorkflowJob pr = j.createProject(WorkflowJob.class, "PR-1");
            pr.setDefinition(new CpsFlowDefinition("withEnv(['CHANGE_TARGET=main']) { " + jenkinsfile + " }", true));
            j.jenkins.setSecurityRealm(j.createDummySecurityRealm());
            j.jenkins.setAuthorizationStrategy(new MockAuthorizationStrategy()
                    .grant(Jenkins.ADMINISTER)
                    .everywhere()
                    .to("admin")
                    .grant(Jenkins.READ, Computer.BUILD)
                    .everywhere()
                    .to("dev")
                    .grant(Item.READ, Item.BUILD)
                    .onItems(pr)
                    .to("dev")
                    .grant(Item.DISCOVER)
                    .onItems(main)
                    .to("dev"));
            QueueItemAuthenticatorConfiguration.get()
                    .getAuthenticators()
                    .add(new MockQueueItemAuthenticator()
                            .authenticate("PR-1", User.getById("dev", true).impersonate2()));
            WorkflowRun b = pr.scheduleBuild2(0).waitForStart();
            j.waitForMessage("blocking started", b);
            assertThat(FileWait.all(Duration.ofMinutes(2), dir.resolve("log/gated-blocking.txt")))
                    .as("PR-1's blocking job waits at its gate")
                    .isTrue();
        });
        sessions.then(j -> {
            Files.writeString(dir.resolve("case/blocking.open"), "");
            WorkflowRun b =
                    j.jenkins.getItemByFullName("PR-1", WorkflowJob.class).getBuildByNumber(1);
            j.assertBuildStatus(Result.FAILURE, j.waitForCompletion(b));
            j.assertLogContains("resumed after a restart", b);
            List<String> refused = b.getLog(10_000).stream()
                    .filter(line ->
                            line.contains("no comparison: this build may not read the job of the target branch main"))
                    .toList();
            assertThat(refused).as("refused before and after the restart").hasSize(2);
            j.assertLogNotContains("compared with", b);
        });
    }
}
