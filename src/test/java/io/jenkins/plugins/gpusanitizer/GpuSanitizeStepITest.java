package io.jenkins.plugins.gpusanitizer;

import static org.assertj.core.api.Assertions.assertThat;

import hudson.EnvVars;
import hudson.model.Label;
import hudson.model.Result;
import hudson.slaves.DumbSlave;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import java.nio.file.Path;
import org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition;
import org.jenkinsci.plugins.workflow.cps.SnippetizerTester;
import org.jenkinsci.plugins.workflow.job.WorkflowJob;
import org.jenkinsci.plugins.workflow.job.WorkflowRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jvnet.hudson.test.JenkinsRule;
import org.jvnet.hudson.test.junit.jupiter.WithJenkins;

/**
 * The full Jenkins path: a Pipeline on an agent whose PATH has the stand-in GPU tools replaying the
 * H200 corpus. Runs only in the real plugin build (mvn verify at the root): jenkins-test-harness is
 * not on Maven Central.
 */
@WithJenkins
class GpuSanitizeStepITest {
    @TempDir
    Path dir;

    private DumbSlave gpuAgent(JenkinsRule j, FakeGpu gpu) throws Exception {
        EnvVars env = new EnvVars(gpu.env());
        return j.createOnlineSlave(Label.get("gpu"), env);
    }

    @Test
    void farOutOfBoundsFailsTheBuildWithTheRealLine(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).farOob());
        WorkflowJob p = j.createProject(WorkflowJob.class, "far");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') { gpuSanitize command: 'python3 train.py --bug far', regressionTimeout: 60 }", true));
        WorkflowRun b = j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
        j.assertLogContains(
                "GPU Sanitizer: FAIL: 1 GPU defect(s) at train_lstm.py:32 (buggy_scale) (reported at train_lstm.py:99",
                b);
        j.assertLogNotContains("Host Frame", b);
        GpuSanitizeAction a = b.getAction(GpuSanitizeAction.class);
        assertThat(a.getVerdict()).isEqualTo("FAIL");
        assertThat(a.getErrorsTotal()).isEqualTo(1603L);
        assertThat(a.getReport().defects()).isNotEmpty();
        assertThat(GpuSanitizePublisher.resultDir(b.getRootDir(), "gpu-sanitizer")
                        .toPath()
                        .resolve("sanitizer-memcheck/sanitizer.xml"))
                .isNotEmptyFile();
        j.createWebClient().getPage(b, a.getUrlName() + "/");
    }

    @Test
    void cleanJobSucceedsAndTwoCallsLiveSideBySide(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).clean());
        WorkflowJob p = j.createProject(WorkflowJob.class, "clean");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') {\n"
                        + "  gpuSanitize command: 'python3 train.py', phases: 'sanitizer', id: 'memcheck'\n"
                        + "  gpuSanitize command: 'python3 train.py', phases: 'blocking', id: 'blocking', name: 'Blocking run'\n"
                        + "}",
                true));
        WorkflowRun b = j.buildAndAssertSuccess(p);
        assertThat(b.getActions(GpuSanitizeAction.class))
                .extracting(GpuSanitizeAction::getId)
                .containsExactly("memcheck", "blocking");
    }

    @Test
    void outsideANodeItFailsClearly(JenkinsRule j) throws Exception {
        WorkflowJob p = j.createProject(WorkflowJob.class, "no-node");
        p.setDefinition(new CpsFlowDefinition("gpuSanitize command: 'python3 train.py'", true));
        WorkflowRun b = j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
        j.assertLogContains("Required context class hudson.FilePath is missing", b);
    }

    @Test
    void secondBuildComparesWithTheFirstAndFailsOnlyOnNewDefects(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).farOob());
        WorkflowJob p = j.createProject(WorkflowJob.class, "reference");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') { gpuSanitize command: 'python3 train.py', phases: 'sanitizer', failOnNewOnly: true }",
                true));
        WorkflowRun first = j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
        assertThat(first.getAction(GpuSanitizeAction.class).getVerdict()).isEqualTo("FAIL");
        WorkflowRun second = j.buildAndAssertSuccess(p);
        j.assertLogContains("compared with build #1: against build #1: 0 new, 1 outstanding, 0 fixed", second);
        assertThat(second.getAction(GpuSanitizeAction.class).getReport().defects())
                .allMatch(d -> d.suppressed() || "outstanding".equals(d.status()));
    }

    @Test
    void snippetGeneratorRoundTrip(JenkinsRule j) throws Exception {
        SnippetizerTester st = new SnippetizerTester(j);
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py");
        st.assertRoundTrip(step, "gpuSanitize 'python3 train.py'");
        step.setTools("memcheck,initcheck");
        step.setPrintLimit(200);
        st.assertRoundTrip(
                step, "gpuSanitize command: 'python3 train.py', printLimit: 200, tools: 'memcheck,initcheck'");
    }
}
