package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import com.cloudbees.plugins.credentials.CredentialsProvider;
import com.cloudbees.plugins.credentials.CredentialsScope;
import com.cloudbees.plugins.credentials.domains.Domain;
import hudson.EnvVars;
import hudson.model.Label;
import hudson.model.Result;
import hudson.slaves.DumbSlave;
import hudson.util.Secret;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.results.BuildFolder;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeBuildAction;
import io.jenkins.plugins.gpusanitizer.testing.StepForm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.htmlunit.html.HtmlButton;
import org.htmlunit.html.HtmlCheckBoxInput;
import org.htmlunit.html.HtmlInput;
import org.htmlunit.html.HtmlOption;
import org.htmlunit.html.HtmlPage;
import org.htmlunit.html.HtmlSelect;
import org.htmlunit.html.HtmlTextArea;
import org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl;
import org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition;
import org.jenkinsci.plugins.workflow.cps.Snippetizer;
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
 * not on Maven Central. Written against jenkins-test-harness 2578.v44660312fd37 (JUnit 5,
 * {@code @WithJenkins} with a {@code JenkinsRule} parameter) and workflow-cps's SnippetizerTester.
 */
@WithJenkins
public class GpuSanitizeStepITest {
    @TempDir
    Path dir;

    /** An agent labelled gpu whose PATH has the stand-in GPU tools (also used by the results ITests). */
    public static DumbSlave gpuAgent(JenkinsRule j, FakeGpu gpu) throws Exception {
        return j.createOnlineSlave(Label.get("gpu"), new EnvVars(gpu.env()));
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
        GpuSanitizeBuildAction a = b.getAction(GpuSanitizeBuildAction.class);
        assertThat(a.getVerdict()).isEqualTo("FAIL");
        assertThat(a.getErrorsTotal()).isEqualTo(1603L);
        assertThat(a.getReport().defects()).isNotEmpty();
        assertThat(BuildFolder.of(b.getRootDir(), "gpu-sanitizer")
                        .directory()
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
        assertThat(b.getActions(GpuSanitizeBuildAction.class))
                .extracting(GpuSanitizeBuildAction::getId)
                .containsExactly("memcheck", "blocking");
    }

    /**
     * #12, 3: workflow-step-api reports the first missing class of getRequiredContext(); FilePath is
     * first in an ordered set, so the message (and the step it suggests, node) is the same on every run.
     */
    @Test
    void outsideANodeItFailsClearlyEveryTime(JenkinsRule j) throws Exception {
        WorkflowJob p = j.createProject(WorkflowJob.class, "no-node");
        p.setDefinition(new CpsFlowDefinition("gpuSanitize command: 'python3 train.py'", true));
        for (int i = 0; i < 3; i++) {
            WorkflowRun b = j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
            j.assertLogContains("Required context class hudson.FilePath is missing", b);
            j.assertLogContains(
                    "Perhaps you forgot to surround the gpuSanitize step with a step that provides this, such as: ", b);
            j.assertLogContains("node", b);
        }
    }

    @Test
    void secondBuildComparesWithTheFirstAndFailsOnlyOnNewDefects(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).farOob());
        WorkflowJob p = j.createProject(WorkflowJob.class, "reference");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') { gpuSanitize command: 'python3 train.py', phases: 'sanitizer', failOnNewOnly: true }",
                true));
        WorkflowRun first = j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
        assertThat(first.getAction(GpuSanitizeBuildAction.class).getVerdict()).isEqualTo("FAIL");
        WorkflowRun second = j.buildAndAssertSuccess(p);
        j.assertLogContains("compared with build #1: against build #1: 0 new, 1 outstanding, 0 fixed", second);
        assertThat(second.getAction(GpuSanitizeBuildAction.class).getReport().defects())
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

    /** #16: the list parameters, and the summary the step returns to the script. */
    @Test
    void theStepReturnsItsSummaryAndTakesTheListParameters(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).clean());
        WorkflowJob p = j.createProject(WorkflowJob.class, "summary");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') {\n"
                        + "  def result = gpuSanitize command: 'python3 train.py', phases: 'sanitizer',\n"
                        + "      sanitizerTools: [sanitizerTool(tool: 'memcheck', action: 'unstable')],\n"
                        + "      suppressionRules: [suppression(id: 'never', kernel: '^no_such_kernel$', reason: 'test')]\n"
                        + "  echo \"verdict=${result.verdict} defects=${result.defects} url=${result.reportUrl}\"\n"
                        + "}",
                true));
        WorkflowRun b = j.buildAndAssertSuccess(p);
        j.assertLogContains("verdict=PASS defects=0 url=job/summary/1/gpu-sanitizer-gpu-sanitizer/", b);
    }

    /** #16: a snippet that gives a deprecated string parameter and its list form is refused, saying why. */
    @Test
    void theStringAndListFormsOfToolsAreNotMixed(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).clean());
        WorkflowJob p = j.createProject(WorkflowJob.class, "mixed");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') { gpuSanitize command: 'python3 train.py', tools: 'memcheck',"
                        + " sanitizerTools: [sanitizerTool(tool: 'racecheck')] }",
                true));
        WorkflowRun b = j.assertBuildStatus(Result.FAILURE, p.scheduleBuild2(0));
        j.assertLogContains("sanitizerTools replaces tools and toolActions: give one or the other", b);
    }

    /**
     * #12, 4: the Snippet Generator renders config.jelly with no instance. With only the command filled
     * in, the generated snippet must name nothing else (it carried printLimit: 0, timeouts of 0,
     * regressionMultiple: 0.0, tools: '' and defaultSuppressions: false).
     */
    @Test
    void theSnippetGeneratorFormStartsAtTheDefaults(JenkinsRule j) throws Exception {
        WorkflowJob p = j.createProject(WorkflowJob.class, "snippets");
        JenkinsRule.WebClient wc = j.createWebClient();
        HtmlPage page = wc.getPage(p, Snippetizer.ACTION_URL);
        HtmlSelect steps = page.getFirstByXPath("//select[contains(@class, 'dropdownList')]");
        HtmlOption gpuSanitize = steps.getOptions().stream()
                .filter(o -> o.getText().startsWith("gpuSanitize:"))
                .findFirst()
                .orElseThrow();
        steps.setSelectedAttribute(gpuSanitize, true);
        wc.waitForBackgroundJavaScript(10_000);
        HtmlInput printLimit = page.getFirstByXPath("//input[@name='_.printLimit']");
        assertThat(printLimit.getValue()).isEqualTo("1000");
        HtmlInput multiple = page.getFirstByXPath("//input[@name='_.regressionMultiple']");
        assertThat(multiple.getValue()).isEqualTo("2.0");
        assertThat(multiple.getAttribute("step")).isEqualTo("any");
        HtmlCheckBoxInput defaults = page.getFirstByXPath("//input[@name='_.defaultSuppressions']");
        assertThat(defaults.isChecked()).isTrue();
        HtmlInput command = page.getFirstByXPath("//input[@name='_.command']");
        command.setValue("python3 train.py");
        HtmlButton generate = (HtmlButton) page.getElementById("generatePipelineScript");
        generate.click();
        wc.waitForBackgroundJavaScript(10_000);
        HtmlTextArea snippet = (HtmlTextArea) page.getElementById("prototypeText");
        assertThat(snippet.getText()).isEqualTo("gpuSanitize 'python3 train.py'");

        // the same through the generator's endpoint, with what the untouched form submits: read from config.jelly
        // (StepForm, which JellyViewsTest binds to the step's defaults), not a copy of it that can go stale
        StringBuilder form = new StringBuilder("{'stapler-class':'" + GpuSanitizeStep.class.getName() + "'");
        Map<String, Object> fields = new LinkedHashMap<>(StepForm.untouched());
        fields.put("command", "python3 train.py");
        fields.forEach((field, value) -> form.append(", '")
                .append(field)
                .append("':")
                .append(value instanceof Boolean ? value : "'" + value + "'"));
        assertThat(fields).containsEntry("gpus", "").containsEntry("printLimit", "1000");
        new SnippetizerTester(j)
                .assertGenerateSnippet(
                        form.append('}').toString(),
                        "gpuSanitize 'python3 train.py'",
                        j.getURL().toString() + p.getUrl() + Snippetizer.ACTION_URL);
    }

    /**
     * #12, 5: an abort waits for the agent to stop the job and compute-sanitizer to finish, copies back
     * what exists, attaches the partial report and ends ABORTED.
     */
    @Test
    void abortAttachesThePartialResultsAndEndsAborted(JenkinsRule j) throws Exception {
        gpuAgent(j, new FakeGpu(dir).clean().hang("memcheck-app"));
        WorkflowJob p = j.createProject(WorkflowJob.class, "abort");
        p.setDefinition(new CpsFlowDefinition(
                "node('gpu') { gpuSanitize command: 'python3 train.py', phases: 'sanitizer' }", true));
        WorkflowRun b = p.scheduleBuild2(0).waitForStart();
        Path pid = dir.resolve("log/pid-memcheck-app.txt");
        for (int i = 0; i < 600 && !Files.isRegularFile(pid); i++) {
            Thread.sleep(100);
        }
        assertThat(pid).as("the job runs on the agent").isRegularFile();
        b.doStop();
        j.waitForCompletion(b);
        j.assertBuildStatus(Result.ABORTED, b);
        j.assertLogContains("[gpu-sanitize] abort: stopping the run on", b);
        j.assertLogContains("[gpu-sanitize] aborted: the results found until then are attached", b);
        GpuSanitizeBuildAction a = b.getAction(GpuSanitizeBuildAction.class);
        assertThat(a).isNotNull();
        assertThat(a.getVerdict()).isEqualTo("ERROR");
        Path results =
                BuildFolder.of(b.getRootDir(), "gpu-sanitizer").directory().toPath();
        assertThat(results.resolve("report.json")).isNotEmptyFile();
        assertThat(results.resolve("sanitizer-memcheck/stdout.log")).exists();
        assertThat(a.getReport().reasons()).anyMatch(r -> r.code().equals("aborted"));
    }

    /**
     * #12, 8: a withCredentials binding (its name does not look secret) echoed by the job never reaches
     * the files the raw pages serve, nor the build log.
     */
    @Test
    void bindingsAreMaskedInTheRawOutputs(JenkinsRule j) throws Exception {
        String secret = "hf_s3cr3t_0123456789";
        CredentialsProvider.lookupStores(j.jenkins)
                .iterator()
                .next()
                .addCredentials(
                        Domain.global(),
                        new StringCredentialsImpl(CredentialsScope.GLOBAL, "hf", "", Secret.fromString(secret)));
        gpuAgent(j, new FakeGpu(dir).clean());
        WorkflowJob p = j.createProject(WorkflowJob.class, "secrets");
        p.setDefinition(new CpsFlowDefinition(
                "withCredentials([string(credentialsId: 'hf', variable: 'HF_PULL')]) {\n"
                        + "  node('gpu') { gpuSanitize command: 'echo pulling with $HF_PULL; python3 train.py',"
                        + " phases: 'sanitizer' }\n"
                        + "}",
                true));
        WorkflowRun b = j.buildAndAssertSuccess(p);
        j.assertLogNotContains(secret, b);
        Path results =
                BuildFolder.of(b.getRootDir(), "gpu-sanitizer").directory().toPath();
        assertThat(results.resolve("sanitizer-memcheck/stdout.log"))
                .content(StandardCharsets.UTF_8)
                .contains("pulling with ****");
        try (Stream<Path> files = Files.walk(results)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(f, StandardCharsets.ISO_8859_1))
                        .as(f.toString())
                        .doesNotContain(secret);
            }
        }
    }

    /**
     * #41, 2, 3 and 4, on the paths a job reaches since each run works in its own copy (#40, #46): the hostile job
     * ({@link HostileJob}, the same command {@link PlantedLinksTest} replays without a controller) plants links in its
     * run folder through its copy's parents ({@code $WORKSPACE/../..}: relative, to the controller's master.key as seen
     * from a run folder four levels below the Jenkins home), by the absolute path the probe's variable gives (absolute,
     * in the phase's folder; to a folder, in the run folder) and beside the copies. None reaches the build folder; the
     * run folder's are named in the log and in not-copied.txt; the copies' folder never comes home. A link the job
     * cannot make fails the job, so the build's success says every link was planted. The agent's run folder is deleted
     * after the complete copy home, so neither the withCredentials value nor one named by maskValues stays on the
     * agent; both are masked in the build folder.
     */
    @Test
    void plantedLinksNeverReachTheBuildFolderAndNothingSecretStaysOnTheAgent(JenkinsRule j) throws Exception {
        String bound = "hf_b0und_links_0123456789";
        String noHint = "hf_n0h1nt_4567890123";
        CredentialsProvider.lookupStores(j.jenkins)
                .iterator()
                .next()
                .addCredentials(
                        Domain.global(),
                        new StringCredentialsImpl(CredentialsScope.GLOBAL, "hf", "", Secret.fromString(bound)));
        DumbSlave agent = gpuAgent(j, new FakeGpu(dir).clean());
        // the harness's home holds a space: the command quotes it
        Path masterKey = j.jenkins.getRootDir().toPath().resolve("secrets/master.key");
        Path folder = Files.createDirectories(dir.resolve("elsewhere"));
        WorkflowJob p = j.createProject(WorkflowJob.class, "links");
        p.setDefinition(new CpsFlowDefinition(
                "withCredentials([string(credentialsId: 'hf', variable: 'HF_PULL')]) {\n"
                        + "  withEnv(['AUTH=" + noHint + "']) {\n"
                        + "    node('gpu') { gpuSanitize command: '" + HostileJob.command(masterKey, folder) + "',"
                        + " phases: 'sanitizer', maskValues: 'AUTH' }\n"
                        + "  }\n"
                        + "}",
                true));
        WorkflowRun b = j.buildAndAssertSuccess(p);
        j.assertLogContains("not copied from the run directory: rel -> ../../../../secrets/master.key", b);
        j.assertLogContains("not copied from the run directory: sanitizer-memcheck/abs -> " + masterKey, b);
        j.assertLogContains("not copied from the run directory: folder -> " + folder, b);
        j.assertLogNotContains(bound, b);
        j.assertLogNotContains(noHint, b);
        Path results =
                BuildFolder.of(b.getRootDir(), "gpu-sanitizer").directory().toPath();
        assertThat(results.resolve("not-copied.txt"))
                .content(StandardCharsets.UTF_8)
                .contains(
                        "rel -> ../../../../secrets/master.key (a symbolic link)",
                        "sanitizer-memcheck/abs -> " + masterKey + " (a symbolic link)",
                        "folder -> " + folder + " (a symbolic link)",
                        "workspaces/ (each run's copy of the workspace");
        assertThat(results.resolve("sanitizer-memcheck/stdout.log"))
                .content(StandardCharsets.UTF_8)
                .contains("pulling with **** --auth ****");
        assertThat(results.resolve("workspaces")).doesNotExist();
        try (Stream<Path> files = Files.walk(results)) {
            for (Path f : files.toList()) {
                assertThat(Files.isSymbolicLink(f)).as(f + " is a link").isFalse();
                if (Files.isRegularFile(f)) {
                    assertThat(Files.readString(f, StandardCharsets.ISO_8859_1))
                            .as(f.toString())
                            .doesNotContain(bound)
                            .doesNotContain(noHint);
                }
            }
        }
        hudson.FilePath workspace = agent.getWorkspaceFor(p);
        assertThat(workspace).isNotNull();
        hudson.FilePath runFolder = hudson.slaves.WorkspaceList.tempDir(workspace)
                .child("gpu-sanitize/" + b.getNumber() + "-gpu-sanitizer");
        assertThat(runFolder.exists())
                .as(runFolder + " deleted after the copy home")
                .isFalse();
    }
}
