package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import hudson.FilePath;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GpuSanitizeStepITest.plantedLinksNeverReachTheBuildFolderAndNothingSecretStaysOnTheAgent} replayed here, so
 * that CI sees a regression before the next real build (issue #46): the same hostile job ({@link HostileJob}) runs as
 * real processes through the agent's side of the step ({@link AgentRun.Start}, as {@link DurableRunTest} does) in a
 * run directory laid out as on an agent ({@code WORKSPACE@tmp/gpu-sanitize/1-gpu-sanitizer}), with the build's
 * {@code WORKSPACE}, a bound credential and a variable named by {@code maskValues}; then the run directory comes home
 * as the recorder brings it ({@link GpuSanitizeRecorder#copyBack}, {@link GpuSanitizeRecorder#settle}). What only a
 * controller shows (the build's result, the log as Jenkins keeps it) stays the ITest's.
 */
class PlantedLinksTest {
    private static final String BOUND = "hf_b0und_links_0123456789";
    private static final String NO_HINT = "hf_n0h1nt_4567890123";
    private static final String MASTER_KEY = "controller master key 0123456789abcdef";

    @TempDir
    Path dir;

    private final RecordingListener listener = new RecordingListener();

    @AfterEach
    void agentForgets() {
        AgentRun.forgetForTests(dir);
    }

    @Test
    void linksAJobPlantsWhereItReachesNeverReachTheBuildFolderAndNothingSecretStaysOnTheAgent() throws Exception {
        // the built-in node's layout, the harness's home with a space in it: HOME/workspace/links@tmp/... is where
        // ../../../../secrets/master.key, seen from the run directory, reaches the controller's key
        Path home = dir.resolve("jenkins home");
        Path masterKey = Files.createDirectories(home.resolve("secrets")).resolve("master.key");
        Files.writeString(masterKey, MASTER_KEY);
        Path folder = Files.createDirectories(dir.resolve("elsewhere"));
        Path workspace = Files.createDirectories(home.resolve("workspace/links"));
        Files.writeString(workspace.resolve("train.py"), "# the checkout\n");
        Path runDirectory = home.resolve("workspace/links@tmp/gpu-sanitize/1-gpu-sanitizer");

        GpuSanitizeStep step = new GpuSanitizeStep(HostileJob.command(masterKey, folder));
        step.setPhases("sanitizer");
        step.setMaskValues("AUTH");
        RunSpec spec = RunSpecMapping.toSpec(step, runDirectory.toString());
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean();
        Map<String, String> env = new LinkedHashMap<>(gpu.env());
        env.put("WORKSPACE", workspace.toString()); // the build's, as on the agent
        env.put("HF_PULL", BOUND); // withCredentials' binding
        env.put("AUTH", NO_HINT); // withEnv, named by maskValues

        AgentSide.Link link = new AgentSide.Link(workspace.toFile(), spec, env, new AgentSide.Controller());
        link.start(false);
        assertThat(AgentRun.awaitEnd(spec.outDir(), 3, TimeUnit.MINUTES)).isTrue();
        AgentProgress ended = link.poll(0);
        assertThat(ended.state()).isEqualTo(AgentProgress.State.ENDED);
        assertThat(ended.failure()).isNull();
        assertThat(ended.summary().verdict())
                .as("the job made every link and trained; its stderr:\n" + stderr(runDirectory))
                .isEqualTo(Verdict.PASS);

        // the job did plant each link, and the relative one reaches the key
        assertThat(runDirectory.resolve(HostileJob.RELATIVE)).isSymbolicLink().hasContent(MASTER_KEY);
        assertThat(runDirectory.resolve(HostileJob.ABSOLUTE)).isSymbolicLink();
        assertThat(runDirectory.resolve(HostileJob.FOLDER)).isSymbolicLink();
        assertThat(runDirectory.resolve(HostileJob.BESIDE_THE_COPIES)).isSymbolicLink();
        // private to the agent's user while it is there
        assertThat(mode(runDirectory)).isEqualTo("rwx------");
        assertThat(mode(runDirectory.getParent())).isEqualTo("rwx------");

        Path build = dir.resolve("controller/builds/1/gpu-sanitizer/gpu-sanitizer");
        SecretMasker masker = SecretMasker.of(env, Set.of("HF_PULL", "AUTH"), List.of(List.of(step.getCommand())));
        boolean complete = GpuSanitizeRecorder.copyBack(agent(runDirectory), build.toFile(), masker, true, listener);
        assertThat(complete).isTrue();

        String console = listener.console();
        assertThat(console)
                .contains("[gpu-sanitize] not copied from the run directory: rel -> ../../../../secrets/master.key")
                .contains("[gpu-sanitize] not copied from the run directory: folder -> " + folder)
                .contains("[gpu-sanitize] not copied from the run directory: sanitizer-memcheck/abs -> " + masterKey)
                .doesNotContain(BOUND)
                .doesNotContain(NO_HINT);
        assertThat(build.resolve(GpuSanitizeRecorder.NOT_COPIED))
                .content(StandardCharsets.UTF_8)
                .contains(
                        "rel -> ../../../../secrets/master.key (a symbolic link)",
                        "sanitizer-memcheck/abs -> " + masterKey + " (a symbolic link)",
                        "folder -> " + folder + " (a symbolic link)",
                        "workspaces/ (each run's copy of the workspace");
        assertThat(build.resolve("sanitizer-memcheck/stdout.log"))
                .content(StandardCharsets.UTF_8)
                .contains("pulling with **** --auth ****");
        assertThat(build.resolve("report.json")).isNotEmptyFile();
        assertThat(build.resolve("workspaces")).doesNotExist();
        try (Stream<Path> files = Files.walk(build)) {
            for (Path f : files.toList()) {
                assertThat(Files.isSymbolicLink(f)).as(f + " is a link").isFalse();
                if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    assertThat(Files.readString(f, StandardCharsets.ISO_8859_1))
                            .as(f.toString())
                            .doesNotContain(BOUND)
                            .doesNotContain(NO_HINT)
                            .doesNotContain(MASTER_KEY);
                }
            }
        }

        GpuSanitizeRecorder.settle(agent(runDirectory), complete, true, "gpu-agent", listener);
        assertThat(runDirectory).as("deleted after the copy home").doesNotExist();
        assertThat(masterKey).as("a link's target stays").hasContent(MASTER_KEY);
        assertThat(workspace.resolve("train.py")).as("the checkout stays").exists();
    }

    /** The agent's run directory as a FilePath whose callables run here, as {@code FilePath.act} runs them there. */
    private static FilePath agent(Path runDirectory) throws Exception {
        FilePath agent = mock(FilePath.class);
        when(agent.getRemote()).thenReturn(runDirectory.toString());
        when(agent.act(any(FilePath.FileCallable.class))).thenAnswer(call -> {
            FilePath.FileCallable<?> callable = call.getArgument(0);
            return callable.invoke(runDirectory.toFile(), null);
        });
        return agent;
    }

    private static String stderr(Path runDirectory) throws IOException {
        Path stderr = runDirectory.resolve("sanitizer-memcheck/stderr.log");
        return Files.isRegularFile(stderr) ? Files.readString(stderr) : "(none)";
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }
}
