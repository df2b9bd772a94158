package io.jenkins.plugins.gpusanitizer.results;

import static io.jenkins.plugins.gpusanitizer.steps.GpuSanitizeStepITest.gpuAgent;
import static org.assertj.core.api.Assertions.assertThat;

import hudson.PluginWrapper;
import hudson.model.Item;
import hudson.model.Result;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import java.net.URL;
import java.nio.file.Path;
import java.util.Collections;
import jenkins.model.Jenkins;
import org.htmlunit.Page;
import org.htmlunit.html.HtmlPage;
import org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition;
import org.jenkinsci.plugins.workflow.job.WorkflowJob;
import org.jenkinsci.plugins.workflow.job.WorkflowRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;
import org.jvnet.hudson.test.JenkinsRule;
import org.jvnet.hudson.test.MockAuthorizationStrategy;
import org.jvnet.hudson.test.junit.jupiter.WithJenkins;

/** The pages a user opens, in a real controller (jenkins-test-harness 2578.v44660312fd37). */
@WithJenkins
class GpuSanitizePagesITest {
    /** jenkins-core 2.555.3, DirectoryBrowserSupport.DEFAULT_CSP_VALUE. */
    static final String DIRECTORY_BROWSER_CSP =
            "sandbox allow-same-origin; default-src 'none'; img-src 'self'; style-src 'self';";

    @TempDir
    Path dir;

    /** #12, 1: the plugin packages with its description (maven-hpi-plugin takes it from index.jelly). */
    @Test
    void thePluginHasItsDescription(JenkinsRule j) throws Exception {
        PluginWrapper plugin = j.jenkins.getPluginManager().getPlugin("gpu-sanitizer");
        assertThat(plugin).isNotNull();
        assertThat(Collections.list(plugin.classLoader.getResources("index.jelly")))
                .extracting(URL::toString)
                .anyMatch(u -> u.endsWith("target/classes/index.jelly"));
    }

    /**
     * #12, 2: raw/ opens (dir.jelly includes the owner's side panel: the build's), and report.html is
     * served with the directory browser's CSP and its stylesheet next to it.
     */
    @Test
    void rawOutputsOpenAndTheReportPageHasItsStylesheet(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).farOob());
        WorkflowJob p = j.createProject(WorkflowJob.class, "far");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') { gpuSanitize command: 'python3 train.py', phases: 'sanitizer' }", true));
        WorkflowRun b = j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
        GpuSanitizeBuildAction a = b.getAction(GpuSanitizeBuildAction.class);
        JenkinsRule.WebClient wc = j.createWebClient();
        HtmlPage raw = wc.getPage(b, a.getUrlName() + "/raw/");
        assertThat(raw.getWebResponse().getStatusCode()).isEqualTo(200);
        assertThat(raw.getWebResponse().getContentAsString()).contains("report.html", "sanitizer-memcheck");
        String base = b.getUrl() + a.getUrlName() + "/raw/";
        Page html = wc.goTo(base + "report.html", null);
        assertThat(html.getWebResponse().getResponseHeaderValue("Content-Security-Policy"))
                .isEqualTo(DIRECTORY_BROWSER_CSP);
        assertThat(html.getWebResponse().getContentAsString())
                .contains("<link rel=\"stylesheet\" href=\"report.css\">")
                .doesNotContain("<style");
        Page css = wc.goTo(base + "report.css", "text/css");
        assertThat(css.getWebResponse().getContentAsString()).isEqualTo(HtmlReport.css());
        wc.getPage(b, a.getUrlName() + "/");
    }

    /**
     * #41, 1: with core's {@code hudson.security.ArtifactsPermission} on, a user who may read the job but not its
     * artifacts gets 403 on the raw outputs (the listing, each file, raw.zip), as on {@code /artifact/}, and 200 on
     * the report page, which says why it links no raw outputs and links none (#46); a user with Run/Artifacts gets them
     * and the links.
     */
    @Test
    @ResourceLock(Resources.SYSTEM_PROPERTIES)
    void rawOutputsNeedTheArtifactsPermissionTheReportPageDoesNot(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).farOob());
        WorkflowJob p = j.createProject(WorkflowJob.class, "secured");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') { gpuSanitize command: 'python3 train.py', phases: 'sanitizer' }", true));
        WorkflowRun b = j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
        GpuSanitizeBuildAction a = b.getAction(GpuSanitizeBuildAction.class);
        j.jenkins.setSecurityRealm(j.createDummySecurityRealm());
        j.jenkins.setAuthorizationStrategy(new MockAuthorizationStrategy()
                .grant(Jenkins.READ, Item.READ)
                .everywhere()
                .to("reader")
                .grant(Jenkins.READ, Item.READ, Run.ARTIFACTS)
                .everywhere()
                .to("artifacts"));
        String page = b.getUrl() + a.getUrlName() + "/";
        String raw = page + "raw/";
        String enabled = System.getProperty("hudson.security.ArtifactsPermission");
        System.setProperty("hudson.security.ArtifactsPermission", "true");
        try {
            JenkinsRule.WebClient reader = j.createWebClient()
                    .withThrowExceptionOnFailingStatusCode(false)
                    .login("reader");
            assertThat(status(reader, b.getUrl() + "artifact/"))
                    .as("core's own rule")
                    .isEqualTo(403);
            assertThat(status(reader, raw)).isEqualTo(403);
            assertThat(status(reader, raw + "report.html")).isEqualTo(403);
            assertThat(status(reader, raw + "sanitizer-memcheck/stdout.log")).isEqualTo(403);
            assertThat(status(reader, raw + "*zip*/raw.zip")).isEqualTo(403);
            Page report = reader.goTo(page, null);
            assertThat(report.getWebResponse().getStatusCode()).isEqualTo(200);
            assertThat(report.getWebResponse().getContentAsString())
                    .contains("FAIL", "need the permission to read this build")
                    .doesNotContain("<a href=\"raw/\">")
                    .as("#46: the report itself links no raw output either (each would answer 403)")
                    .doesNotContain("href=\"raw/");

            JenkinsRule.WebClient artifacts = j.createWebClient()
                    .withThrowExceptionOnFailingStatusCode(false)
                    .login("artifacts");
            assertThat(status(artifacts, raw)).isEqualTo(200);
            assertThat(status(artifacts, raw + "report.html")).isEqualTo(200);
            assertThat(status(artifacts, raw + "*zip*/raw.zip")).isEqualTo(200);
            assertThat(artifacts.goTo(page, null).getWebResponse().getContentAsString())
                    .contains("<a href=\"raw/\">", "href=\"raw/sanitizer-memcheck/stdout.log\"");
        } finally {
            if (enabled == null) {
                System.clearProperty("hudson.security.ArtifactsPermission");
            } else {
                System.setProperty("hudson.security.ArtifactsPermission", enabled);
            }
        }
    }

    private static int status(JenkinsRule.WebClient wc, String url) throws Exception {
        return wc.goTo(url, null).getWebResponse().getStatusCode();
    }

    /** #12, 6: a job whose builds all fail still shows the trend, and the trend's URL has a page. */
    @Test
    void theTrendOfAJobWhoseBuildsAllFail(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).farOob());
        WorkflowJob p = j.createProject(WorkflowJob.class, "failing");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') { gpuSanitize command: 'python3 train.py', phases: 'sanitizer' }", true));
        j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
        j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
        assertThat(p.getLastSuccessfulBuild()).isNull();
        GpuSanitizeJobAction trend = p.getAction(GpuSanitizeJobAction.class);
        assertThat(trend).isNotNull();
        assertThat(trend.getBuilds()).hasSize(2);
        JenkinsRule.WebClient wc = j.createWebClient();
        assertThat(wc.getPage(p).getWebResponse().getContentAsString()).contains("gs-job-box");
        HtmlPage page = wc.getPage(p, trend.getUrlName() + "/");
        assertThat(page.getWebResponse().getStatusCode()).isEqualTo(200);
        assertThat(page.getWebResponse().getContentAsString()).contains("#1", "#2", "FAIL", "<svg");
    }
}
