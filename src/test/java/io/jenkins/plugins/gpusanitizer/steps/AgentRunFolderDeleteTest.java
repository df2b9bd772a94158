package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's run folder deleted once everything was copied home: a job that made its outputs read-only ({@code chmod
 * 555}) does not leave the folder (and what the job wrote in it) on the agent, and a link the job planted there is
 * removed as a link, its target never entered.
 */
@EnabledOnOs(OS.LINUX)
class AgentRunFolderDeleteTest {
    @TempDir
    Path dir;

    @Test
    void aReadOnlyFolderTheJobMadeGoesAndNothingALinkReaches() throws Exception {
        Path secrets = Files.createDirectories(dir.resolve("home/secrets"));
        Files.writeString(secrets.resolve("master.key"), "not the gate's to delete");
        Path run = Files.createDirectories(dir.resolve("ws@tmp/gpu-sanitize/run-1"));
        Path outputs = Files.createDirectories(run.resolve("workspaces/sanitizer-memcheck/outputs"));
        Files.write(outputs.resolve("ckpt.pt"), new byte[1024]);
        Files.createSymbolicLink(run.resolve("workspaces/sanitizer-memcheck/home"), secrets);
        Files.setPosixFilePermissions(outputs, PosixFilePermissions.fromString("r-xr-xr-x"));
        Files.setPosixFilePermissions(outputs.getParent(), PosixFilePermissions.fromString("r-xr-xr-x"));

        boolean gone = new AgentRunFolder.Delete().invoke(run.toFile(), null);

        assertThat(gone).isTrue();
        assertThat(run).doesNotExist();
        assertThat(secrets.resolve("master.key")).hasContent("not the gate's to delete");
    }

    @Test
    void aLinkInThePlaceOfTheRunFolderIsRemovedAsALink() throws Exception {
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("kept.txt"), "not the run's");
        Path run = dir.resolve("ws@tmp/gpu-sanitize/run-1");
        Files.createDirectories(run.getParent());
        Files.createSymbolicLink(run, elsewhere);

        assertThat(new AgentRunFolder.Delete().invoke(run.toFile(), null)).isTrue();
        assertThat(run).doesNotExist();
        assertThat(elsewhere.resolve("kept.txt")).hasContent("not the run's");
    }

    @Test
    void aFolderAlreadyGoneIsGone() throws Exception {
        assertThat(new AgentRunFolder.Delete().invoke(dir.resolve("never-made").toFile(), null))
                .isTrue();
    }
}
