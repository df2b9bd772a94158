package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import hudson.FilePath;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #41, 2 and 3: what a job leaves in its run directory on the agent reaches the build folder as plain,
 * masked files only (no symbolic link crosses, on the masked path and without secrets alike); the agent's copy is
 * private, masked, and deleted once everything came home. The agent is this JVM: the file callables run on a
 * local folder, as {@code FilePath.act} runs them on the agent.
 */
class CopyBackTest {
    private static final String SECRET = "hf_AuthWithNoHint77";
    private static final String MASTER_KEY = "controller master key 0123456789abcdef";

    @TempDir
    Path dir;

    private Path agentRun;
    private Path build;
    private final RecordingListener listener = new RecordingListener();

    @BeforeEach
    void aRunDirectoryWithLinks() throws IOException {
        // DIR/home/secrets/master.key is what ../../../../secrets/master.key reaches from
        // DIR/home/ws@tmp/gpu-sanitize/7-id/blocking
        Path secrets = Files.createDirectories(dir.resolve("home/secrets"));
        Files.writeString(secrets.resolve("master.key"), MASTER_KEY);
        Path outside = Files.createDirectories(dir.resolve("outside-folder"));
        Files.writeString(outside.resolve("private.txt"), MASTER_KEY);
        agentRun = dir.resolve("home/ws@tmp/gpu-sanitize/7-id");
        AgentRunFolder.createPrivate(agentRun);
        Path blocking = Files.createDirectories(agentRun.resolve("blocking"));
        Files.writeString(blocking.resolve("stdout.log"), "logged in with --auth " + SECRET + "\nstep 1\n");
        Files.writeString(agentRun.resolve("report.json"), "{\"command\":\"python3 train.py --auth " + SECRET + "\"}");
        Files.createSymbolicLink(blocking.resolve("key"), Path.of("../../../../secrets/master.key"));
        Files.createSymbolicLink(agentRun.resolve("absolute"), secrets.resolve("master.key"));
        Files.createSymbolicLink(agentRun.resolve("folder"), outside);
        assertThat(agentRun.resolve("blocking/key"))
                .as("the relative link resolves")
                .hasContent(MASTER_KEY);
        build = dir.resolve("controller/builds/7/gpu-sanitizer/id");
    }

    /** The agent's run directory as a FilePath whose callables run here. */
    private FilePath agent() throws Exception {
        FilePath agent = mock(FilePath.class);
        when(agent.getRemote()).thenReturn(agentRun.toString());
        // the real FilePath.act has a FileCallable and a remoting Callable overload: the matcher names which
        when(agent.act(any(FilePath.FileCallable.class))).thenAnswer(call -> {
            FilePath.FileCallable<?> callable = call.getArgument(0);
            return callable.invoke(agentRun.toFile(), null);
        });
        return agent;
    }

    private static SecretMasker masker() {
        return SecretMasker.of(Map.of("AUTH", SECRET), List.of("AUTH"));
    }

    @Test
    void noLinkCrossesAndEveryFileComesHomeMasked() throws Exception {
        boolean complete = GpuSanitizeRecorder.copyBack(agent(), build.toFile(), masker(), true, listener);

        assertThat(complete).isTrue();
        assertThat(linksUnder(build)).as("links in the build folder").isEmpty();
        assertThat(build.resolve("blocking/stdout.log")).hasContent("logged in with --auth ****\nstep 1\n");
        assertThat(build.resolve("report.json")).hasContent("{\"command\":\"python3 train.py --auth ****\"}");
        assertThat(build.resolve("blocking/key")).doesNotExist();
        assertThat(build.resolve("absolute")).doesNotExist();
        assertThat(build.resolve("folder")).doesNotExist();
        for (Path file : filesUnder(build)) {
            assertThat(Files.readString(file)).doesNotContain(MASTER_KEY).doesNotContain(SECRET);
        }
        String notCopied = Files.readString(build.resolve(GpuSanitizeRecorder.NOT_COPIED));
        assertThat(notCopied.lines())
                .containsExactlyInAnyOrder(
                        "absolute -> " + dir.resolve("home/secrets/master.key") + " (a symbolic link)",
                        "blocking/key -> ../../../../secrets/master.key (a symbolic link)",
                        "folder -> " + dir.resolve("outside-folder") + " (a symbolic link)");
        assertThat(listener.console())
                .contains(
                        "[gpu-sanitize] not copied from the run directory: blocking/key -> ../../../../secrets/master.key");

        // the agent's copy: private and masked, links left as they were (never followed, never rewritten)
        assertThat(Files.readString(agentRun.resolve("blocking/stdout.log"))).doesNotContain(SECRET);
        assertThat(Files.readString(agentRun.resolve("report.json"))).doesNotContain(SECRET);
        assertThat(mode(agentRun)).isEqualTo("rwx------");
        assertThat(mode(agentRun.getParent())).isEqualTo("rwx------");
        assertThat(mode(agentRun.resolve("blocking"))).isEqualTo("rwx------");
        assertThat(mode(agentRun.resolve("blocking/stdout.log"))).isEqualTo("rw-------");
        assertThat(mode(agentRun.resolve("report.json"))).isEqualTo("rw-------");
        assertThat(dir.resolve("home/secrets/master.key")).hasContent(MASTER_KEY);
        assertThat(mode(dir.resolve("home/secrets/master.key"))).isNotEqualTo("rw-------");

        GpuSanitizeRecorder.settle(agent(), complete, true, "gpu-1", listener);
        assertThat(agentRun).as("deleted after a complete copy home").doesNotExist();
        assertThat(dir.resolve("home/secrets/master.key"))
                .as("a link's target stays")
                .hasContent(MASTER_KEY);
        assertThat(dir.resolve("outside-folder/private.txt")).hasContent(MASTER_KEY);
    }

    /** Issue #40: each run's copy of the workspace is not brought home; its manifest is, and the copy goes. */
    @Test
    void theRunsWorkspaceCopiesStayOnTheAgentTheirManifestsComeHome() throws Exception {
        Path copy = Files.createDirectories(agentRun.resolve("workspaces/blocking/checkpoints"));
        Files.write(copy.resolve("model.pt"), new byte[4096]);
        Files.writeString(agentRun.resolve("blocking/workspace.txt"), "workspace: " + copy.getParent() + "\n");

        boolean complete = GpuSanitizeRecorder.copyBack(agent(), build.toFile(), masker(), true, listener);

        assertThat(complete).isTrue();
        assertThat(build.resolve("workspaces")).doesNotExist();
        assertThat(build.resolve("blocking/workspace.txt")).exists();
        assertThat(Files.readString(build.resolve(GpuSanitizeRecorder.NOT_COPIED)))
                .contains("workspaces/ (each run's copy of the workspace");
        GpuSanitizeRecorder.settle(agent(), complete, true, "gpu-1", listener);
        assertThat(agentRun).as("the copies go with the run folder").doesNotExist();
    }

    @Test
    void withoutSecretsTheCopyIsTheSameNoLinkCrosses() throws Exception {
        assertThat(GpuSanitizeRecorder.copyBack(agent(), build.toFile(), new SecretMasker(List.of()), true, listener))
                .isTrue();
        assertThat(linksUnder(build)).isEmpty();
        assertThat(filesUnder(build))
                .extracting(path -> build.relativize(path).toString())
                .containsExactlyInAnyOrder("blocking/stdout.log", "report.json", GpuSanitizeRecorder.NOT_COPIED);
    }

    @Test
    void anIncompleteCopyKeepsTheAgentsCopyMaskedAndSaysWhere() throws Exception {
        // a file the controller cannot write: a folder stands where it goes
        Files.createDirectories(build.resolve("report.json"));
        boolean complete = GpuSanitizeRecorder.copyBack(agent(), build.toFile(), masker(), true, listener);
        assertThat(complete).isFalse();
        GpuSanitizeRecorder.settle(agent(), complete, true, "gpu-1", listener);
        assertThat(agentRun.resolve("report.json")).exists();
        assertThat(Files.readString(agentRun.resolve("report.json"))).doesNotContain(SECRET);
        assertThat(Files.readString(agentRun.resolve("blocking/stdout.log"))).doesNotContain(SECRET);
        assertThat(listener.console())
                .contains("ERROR: [gpu-sanitize] not copied: report.json")
                .contains("[gpu-sanitize] the run directory stays on gpu-1, its secrets masked (not everything was"
                        + " copied home): " + agentRun);
    }

    @Test
    void aRunThatHadNotEndedIsNeitherRewrittenNorDeleted() throws Exception {
        boolean complete = GpuSanitizeRecorder.copyBack(agent(), build.toFile(), masker(), false, listener);
        assertThat(complete).isTrue();
        assertThat(build.resolve("blocking/stdout.log")).hasContent("logged in with --auth ****\nstep 1\n");
        assertThat(Files.readString(agentRun.resolve("blocking/stdout.log")))
                .as("a live file is left alone")
                .contains(SECRET);
        GpuSanitizeRecorder.settle(agent(), complete, false, "gpu-1", listener);
        assertThat(agentRun).exists();
        assertThat(listener.console())
                .contains("the run directory stays on gpu-1 (the run had not ended there): " + agentRun);
    }

    /** A link made after the listing (a job's process still running) is refused by the read itself. */
    @Test
    void theReadFollowsNoLinkAndLeavesNoFolder() throws Exception {
        assertThatThrownBy(() -> new AgentRunFolder.Read("blocking/key", 0).invoke(agentRun.toFile(), null))
                .isInstanceOf(IOException.class)
                .hasMessage("blocking/key is not a regular file (a link?)");
        assertThatThrownBy(() -> new AgentRunFolder.Read("folder/private.txt", 0).invoke(agentRun.toFile(), null))
                .isInstanceOf(IOException.class)
                .hasMessage("folder/private.txt: folder is not a folder (a link?)");
        assertThatThrownBy(() -> new AgentRunFolder.Read("../../secrets/master.key", 0).invoke(agentRun.toFile(), null))
                .isInstanceOf(IOException.class)
                .hasMessage("../../secrets/master.key is outside the run directory");
        byte[] whole = new AgentRunFolder.Read("blocking/stdout.log", 0).invoke(agentRun.toFile(), null);
        assertThat(new String(whole, StandardCharsets.UTF_8)).startsWith("logged in");
        assertThat(new AgentRunFolder.Read("blocking/stdout.log", whole.length).invoke(agentRun.toFile(), null))
                .isEmpty();
    }

    /** A file larger than one piece comes home whole, a secret across the pieces' border masked. */
    @Test
    void aFileLargerThanOnePieceComesHomeWhole() throws Exception {
        StringBuilder big = new StringBuilder();
        while (big.length() < AgentRunFolder.CHUNK - 5) {
            big.append("loss 0.125 step ").append(big.length()).append('\n');
        }
        big.setLength(AgentRunFolder.CHUNK - 5);
        big.append(SECRET).append("\nend\n"); // the secret straddles the first piece's end
        Files.writeString(agentRun.resolve("blocking/stderr.log"), big);
        GpuSanitizeRecorder.copyBack(agent(), build.toFile(), masker(), false, listener);
        assertThat(build.resolve("blocking/stderr.log"))
                .hasContent(big.toString().replace(SECRET, "****"));
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    private static List<Path> linksUnder(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isSymbolicLink).toList();
        }
    }

    private static List<Path> filesUnder(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(path -> Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS))
                    .toList();
        }
    }
}
