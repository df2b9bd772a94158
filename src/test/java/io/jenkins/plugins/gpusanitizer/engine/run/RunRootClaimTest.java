package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run directory another user could write in is never used: on a shared machine they could make {@code --out}
 * first and replace what the gate writes and reads there. One this process makes, or the user's own empty one, is.
 */
@EnabledOnOs(OS.LINUX)
class RunRootClaimTest {
    @TempDir
    Path dir;

    @Test
    void aNewFolderIsMadeWithItsParents() {
        Path out = dir.resolve("a/b/run");
        RunRootClaim.claim(out);
        assertThat(out).isEmptyDirectory();
    }

    @Test
    void theUsersOwnEmptyFolderIsUsed() throws IOException {
        Path out = Files.createDirectory(dir.resolve("run"));
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwxr-xr-x"));
        RunRootClaim.claim(out);
        assertThat(out).isEmptyDirectory();
    }

    @Test
    void aFolderOthersCanWriteInIsRefused() throws IOException {
        Path out = Files.createDirectory(dir.resolve("gate-out"));
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> RunRootClaim.claim(out))
                .isInstanceOf(RunException.class)
                .hasMessage("run directory " + out + " is writable by others (rwxrwxrwx): what they write there could"
                        + " change the verdict; chmod go-w it or give a new --out");
    }

    @Test
    void anotherUsersFolderIsRefused() throws IOException {
        Path out = Files.createDirectory(dir.resolve("gate-out"));
        try {
            Files.setAttribute(out, "unix:uid", 65534);
        } catch (IOException e) {
            Assumptions.abort("this user cannot give a folder to another (not root): " + e.getMessage());
        }
        assertThatThrownBy(() -> RunRootClaim.claim(out))
                .isInstanceOf(RunException.class)
                .hasMessageContaining("belongs to another user (uid 65534)");
    }

    @Test
    void aFolderWithFilesOrAFileIsRefused() throws IOException {
        Path out = Files.createDirectory(dir.resolve("run"));
        Files.writeString(out.resolve("report.json"), "{}");
        assertThatThrownBy(() -> RunRootClaim.claim(out)).hasMessageContaining("is not empty");
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertThatThrownBy(() -> RunRootClaim.claim(file)).hasMessageContaining("exists and is not a folder");
    }
}
