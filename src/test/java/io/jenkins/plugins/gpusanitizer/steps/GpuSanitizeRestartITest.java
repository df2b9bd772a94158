package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import hudson.model.Result;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeBuildAction;
import java.nio.file.Path;
import org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition;
import org.jenkinsci.plugins.workflow.job.WorkflowJob;
import org.jenkinsci.plugins.workflow.job.WorkflowRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.jvnet.hudson.test.junit.jupiter.JenkinsSessionExtension;

/**
 * A controller restart in the middle of the blocking phase: the phase keeps running (detached through
 * the launcher), the step resumes and follows it instead of starting it again, and the build ends with
 * the same finding as without the restart. Runs only in the real plugin build (jenkins-test-harness is
 * not on Maven Central); not run where this was written.
 */
class GpuSanitizeRestartITest {
    @RegisterExtension
    private final JenkinsSessionExtension sessions = new JenkinsSessionExtension();

    @TempDir
    Path dir;

    @Test
    void aRestartDuringAPhaseResumesTheRun() throws Throwable {
        FakeGpu gpu = new FakeGpu(dir).farOob().put("blocking.sleep", "20");
        sessions.then(j -> {
            GpuSanitizeStepITest.gpuAgent(j, gpu);
            WorkflowJob p = j.createProject(WorkflowJob.class, "restart");
            p.setDefinition(
                    new CpsFlowDefinition("node('gpu') { gpuSanitize command: 'python3 train.py --bug far' }", true));
            WorkflowRun b = p.scheduleBuild2(0).waitForStart();
            j.waitForMessage("blocking started", b);
        });
        sessions.then(j -> {
            WorkflowJob p = j.jenkins.getItemByFullName("restart", WorkflowJob.class);
            WorkflowRun b = p.getBuildByNumber(1);
            j.assertBuildStatus(Result.FAILURE, j.waitForCompletion(b));
            j.assertLogContains("resumed after a restart", b);
            j.assertLogContains("blocking followed again (started before a restart)", b);
            GpuSanitizeBuildAction action = b.getAction(GpuSanitizeBuildAction.class);
            assertThat(action.getVerdict()).isEqualTo("FAIL");
            assertThat(action.getReport().diagnosis().faultAt().line()).isEqualTo(32);
            assertThat(gpu.logged("calls.txt").lines().filter(line -> line.startsWith("python3 train.py")))
                    .as("memcheck, blocking and regression started once each")
                    .hasSize(3);
        });
    }
}
