package io.jenkins.plugins.gpusanitizer.results;

import static io.jenkins.plugins.gpusanitizer.steps.GpuSanitizeStepITest.gpuAgent;
import static org.assertj.core.api.Assertions.assertThat;

import hudson.model.Computer;
import hudson.model.Item;
import hudson.model.Result;
import hudson.model.User;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import jenkins.branch.BranchSource;
import jenkins.model.Jenkins;
import jenkins.scm.api.mixin.ChangeRequestCheckoutStrategy;
import jenkins.scm.impl.mock.MockSCMController;
import jenkins.scm.impl.mock.MockSCMDiscoverBranches;
import jenkins.scm.impl.mock.MockSCMDiscoverChangeRequests;
import jenkins.scm.impl.mock.MockSCMSource;
import jenkins.security.QueueItemAuthenticatorConfiguration;
import org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition;
import org.jenkinsci.plugins.workflow.job.WorkflowJob;
import org.jenkinsci.plugins.workflow.job.WorkflowRun;
import org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jvnet.hudson.test.JenkinsRule;
import org.jvnet.hudson.test.MockAuthorizationStrategy;
import org.jvnet.hudson.test.MockQueueItemAuthenticator;
import org.jvnet.hudson.test.junit.jupiter.WithJenkins;

/** #12, 7: the reference build of a pull request, looked up as the build's user and by the branch job's name. */
@WithJenkins
class ReferencesITest {
    static final String JENKINSFILE =
            "node('gpu') { gpuSanitize command: 'python3 train.py', phases: 'sanitizer', failOnNewOnly: true }";

    @TempDir
    Path dir;

    /** The target branch's job may be discovered but not read: the comparison is skipped, the build goes on. */
    @Test
    void aTargetBranchTheBuildMayNotReadSkipsTheComparison(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).farOob());
        WorkflowJob main = j.createProject(WorkflowJob.class, "main");
        main.setDefinition(new CpsFlowDefinition(JENKINSFILE, true));
        j.assertBuildStatus(Result.FAILURE, main.scheduleBuild2(0));
        WorkflowJob pr = j.createProject(WorkflowJob.class, "PR-1");
        pr.setDefinition(new CpsFlowDefinition("withEnv(['CHANGE_TARGET=main']) { " + JENKINSFILE + " }", true));
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
        WorkflowRun b = j.assertBuildStatus(Result.FAILURE, pr.scheduleBuild2(0));
        j.assertLogContains(
                "[gpu-sanitize] no comparison: this build may not read the job of the target branch main", b);
        j.assertLogNotContains("compared with", b);
        assertThat(b.getAction(GpuSanitizeBuildAction.class).getVerdict()).isEqualTo("FAIL");
    }

    /** In a multibranch project the branch release/1.x is the job release%2F1.x (branch-api's NameEncoder). */
    @Test
    void aChangeRequestIsComparedWithItsTargetBranchByItsEncodedName(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).farOob());
        try (MockSCMController c = MockSCMController.create()) {
            c.createRepository("repo");
            c.createBranch("repo", "release/1.x");
            c.addFile("repo", "release/1.x", "the job", "Jenkinsfile", JENKINSFILE.getBytes(StandardCharsets.UTF_8));
            WorkflowMultiBranchProject mp = j.createProject(WorkflowMultiBranchProject.class, "repo");
            mp.getSourcesList()
                    .add(new BranchSource(new MockSCMSource(
                            c,
                            "repo",
                            new MockSCMDiscoverBranches(),
                            new MockSCMDiscoverChangeRequests(ChangeRequestCheckoutStrategy.HEAD))));
            mp.scheduleBuild2(0).getFuture().get();
            j.waitUntilNoActivity();
            WorkflowJob branch = mp.getItemByBranchName("release/1.x");
            assertThat(branch).isNotNull();
            assertThat(branch.getName()).isEqualTo("release%2F1.x");
            assertThat(branch.getLastCompletedBuild().getResult()).isEqualTo(Result.FAILURE);

            Integer cr = c.openChangeRequest("repo", "release/1.x");
            mp.scheduleBuild2(0).getFuture().get();
            j.waitUntilNoActivity();
            WorkflowJob change = mp.getItem("CR-" + cr);
            assertThat(change).isNotNull();
            WorkflowRun b = change.getLastCompletedBuild();
            j.assertLogContains("compared with release/1.x #1", b);
            j.assertBuildStatusSuccess(b); // the same defect: outstanding, and only new ones fail
        }
    }
}
