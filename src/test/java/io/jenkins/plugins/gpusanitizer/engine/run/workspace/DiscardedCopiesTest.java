package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The CLI's deletion of the runs' copies: everything in them goes, nothing a link in them points to. */
@EnabledOnOs(OS.LINUX)
class DiscardedCopiesTest {
    @TempDir
    Path dir;

    @Test
    void theCopiesGoWithTheirLinksAndReadOnlyFoldersButNothingALinkReaches() throws IOException {
        Path run = dir.resolve("run");
        Path outside = Files.createDirectories(dir.resolve("datasets/coco128"));
        Files.writeString(outside.resolve("labels.txt"), "a dataset beside the checkout");
        Path copy = Files.createDirectories(run.resolve("workspaces/blocking"));
        Files.writeString(copy.resolve("train.py"), "print(1)\n");
        Files.write(Files.createDirectories(copy.resolve("outputs")).resolve("ckpt.pt"), new byte[4096]);
        Files.createSymbolicLink(copy.resolve("data"), outside); // a link to a folder: removed, never entered
        Files.createSymbolicLink(copy.resolve("labels.txt"), outside.resolve("labels.txt"));
        Files.setPosixFilePermissions(copy.resolve("outputs"), PosixFilePermissions.fromString("r-xr-xr-x"));
        Files.writeString(Files.createDirectories(run.resolve("blocking")).resolve("workspace.json"), "{}");

        TreeDeletion.Outcome o = DiscardedCopies.discard(run);

        assertThat(run.resolve("workspaces")).doesNotExist();
        assertThat(o.failed()).isEmpty();
        assertThat(o.files()).isEqualTo(4);
        assertThat(o.bytes()).isEqualTo(4096 + "print(1)\n".length());
        assertThat(outside.resolve("labels.txt")).hasContent("a dataset beside the checkout");
        assertThat(run.resolve("blocking/workspace.json"))
                .as("the manifests stay")
                .exists();
        assertThat(DiscardedCopies.summary(o, run.resolve("workspaces")))
                .startsWith("the runs' copies of the working directory deleted: " + run.resolve("workspaces")
                        + " (4 file(s), 0.0 MiB; --keep-workspaces keeps them)");
    }

    @Test
    void noCopiesNothingSaid() {
        assertThat(DiscardedCopies.discard(dir)).isNull();
    }
}
