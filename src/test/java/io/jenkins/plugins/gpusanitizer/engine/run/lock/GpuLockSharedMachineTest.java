package io.jenkins.plugins.gpusanitizer.engine.run.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.jenkins.plugins.gpusanitizer.engine.run.ProgressLog;
import io.jenkins.plugins.gpusanitizer.engine.run.Secrets;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #26, items 1 and 2: the lock folder on a machine shared by several users. The attacker's moves are made by
 * this test in a temporary folder (links, hard links, a forged holder file); another user's ownership is either
 * real (a chown, as root) or given through {@link GpuLock.Identity}, since a test cannot chown as any other user.
 */
class GpuLockSharedMachineTest {
    @TempDir
    Path dir;

    private final List<String> log = new CopyOnWriteArrayList<>();
    private final ProgressLog progress = new ProgressLog(log::add, new Secrets(Map.of()));
    private final GpuLock.Holder me = GpuLock.Holder.of(Map.of(), Path.of("/ws/run"));

    private static long myUid() throws Exception {
        return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
    }

    private GpuLock take(Path locks, String gpu, GpuLock.Identity identity) throws Exception {
        return GpuLock.take(locks, GpuLock.Card.asGiven(List.of(gpu)), me, 0, progress, identity);
    }

    /** Waits up to a second: long enough to say in the log that it waits and for whom. */
    private GpuLock takeWaiting(Path locks, String gpu) throws Exception {
        return GpuLock.take(
                locks,
                GpuLock.Card.asGiven(List.of(gpu)),
                me,
                1,
                progress,
                new GpuLock.Identity(myUid(), 0, dir.resolve("own")));
    }

    private GpuLock take(Path locks, String gpu) throws Exception {
        return take(locks, gpu, new GpuLock.Identity(myUid(), 0, dir.resolve("own")));
    }

    private static int mode(Path file) throws Exception {
        return (Integer) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    /**
     * gpu-0.lock -> ~victim/.bashrc: refused, the target neither chmod'ed nor changed; a dangling link never
     * creates its target.
     */
    @Test
    void aPlantedLinkIsNeverFollowedNorItsTargetChmodded() throws Exception {
        Path locks = Files.createDirectories(dir.resolve("locks"));
        Path bashrc = Files.writeString(dir.resolve("bashrc"), "export PS1=safe\n");
        Files.setPosixFilePermissions(bashrc, PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(locks.resolve("gpu-0.lock"), bashrc);
        Path missing = dir.resolve("created-by-the-victim");
        Files.createSymbolicLink(locks.resolve("gpu-1.lock"), missing);

        for (String gpu : List.of("0", "1")) {
            assertThatThrownBy(() -> take(locks, gpu).close())
                    .isInstanceOf(GpuLock.NotTaken.class)
                    .hasMessageContaining("gpu-" + gpu + ".lock")
                    .hasMessageContaining("symbolic link")
                    .satisfies(e -> assertThat(((GpuLock.NotTaken) e).code).isEqualTo("gpu-lock"))
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
        assertThat(mode(bashrc)).as("the link's target keeps its mode").isEqualTo(0600);
        assertThat(bashrc).hasContent("export PS1=safe");
        assertThat(missing).as("a dangling link's target is never created").doesNotExist();
        assertThat(locks.resolve("gpu-0.holder.json")).doesNotExist();
    }

    /** A hard link to someone's file (where fs.protected_hardlinks is off) is refused: two names. */
    @Test
    void aHardLinkToAnotherFileIsRefused() throws Exception {
        Path locks = Files.createDirectories(dir.resolve("locks"));
        Path bashrc = Files.writeString(dir.resolve("bashrc"), "export PS1=safe\n");
        Files.setPosixFilePermissions(bashrc, PosixFilePermissions.fromString("rw-------"));
        Files.createLink(locks.resolve("gpu-0.lock"), bashrc);
        assertThatThrownBy(() -> take(locks, "0").close())
                .isInstanceOf(GpuLock.NotTaken.class)
                .hasMessageContaining("2 names");
        assertThat(mode(bashrc)).isEqualTo(0600);
    }

    /** Lock files: created for their owner only, an existing one never chmod'ed. */
    @Test
    void aNewLockFileIsItsOwnersAloneAndAnExistingOneKeepsItsMode() throws Exception {
        Path locks = Files.createDirectories(dir.resolve("locks"));
        Path existing = Files.createFile(locks.resolve("gpu-1.lock"));
        Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rw-r-----"));
        try (GpuLock lock = take(locks, "0");
                GpuLock other = take(locks, "1")) {
            assertThat(mode(locks.resolve("gpu-0.lock"))).isEqualTo(0600);
            assertThat(mode(existing)).isEqualTo(0640);
        }
    }

    /**
     * A folder other users may write without the sticky bit (they could delete a held lock file and take the card
     * beside it): bypassed for the user's own folder, said in one line, which says what is lost.
     */
    @Test
    void aFolderOthersCanEmptyIsBypassedForAPrivateOne() throws Exception {
        Path locks = Files.createDirectories(dir.resolve("locks"));
        Files.setPosixFilePermissions(locks, PosixFilePermissions.fromString("rwxrwxrwx"));
        try (GpuLock lock = take(locks, "0")) {
            assertThat(lock.directory()).isEqualTo(dir.resolve("own").toRealPath());
            assertThat(mode(dir.resolve("own"))).isEqualTo(0700);
        }
        assertThat(log)
                .singleElement()
                .satisfies(l -> assertThat(l)
                        .contains("GPU lock folder " + locks + " not used")
                        .contains("without the sticky bit")
                        .contains("locking in " + dir.resolve("own").toRealPath())
                        .contains("does not exclude other users' runs"));
        assertThat(locks.resolve("gpu-0.lock")).doesNotExist();
    }

    /**
     * The attack of the issue for real: the folder belongs to another user (uid 4711), world-writable. Needs root
     * (a chown); the same rule runs without root in {@link #aFolderOfAnotherUserIsNotUsedThroughTheIdentitySeam}.
     */
    @Test
    void aFolderOfAnotherUserIsBypassed() throws Exception {
        assumeThat(myUid()).as("chown needs root").isZero();
        Path locks = Files.createDirectories(dir.resolve("locks"));
        Files.setAttribute(locks, "unix:uid", 4711);
        Files.setPosixFilePermissions(locks, PosixFilePermissions.fromString("rwxrwxrwx"));
        try (GpuLock lock = take(locks, "0", GpuLock.Identity.current(Map.of()))) {
            assertThat(lock.directory()).isNotEqualTo(locks.toRealPath());
            assertThat(log).anyMatch(l -> l.contains("belongs to uid 4711, another user"));
        }
        assertThat(locks.resolve("gpu-0.lock")).doesNotExist();
    }

    /** This process seen as uid 4711: the folder (this test's) is another user's, and so is the fallback: one line. */
    @Test
    void aFolderOfAnotherUserIsNotUsedThroughTheIdentitySeam() throws Exception {
        Path locks = Files.createDirectories(dir.resolve("locks"));
        Files.createDirectories(dir.resolve("own"));
        long owner = myUid();
        assertThatThrownBy(() -> take(locks, "0", new GpuLock.Identity(4711, -2, dir.resolve("own"))))
                .isInstanceOf(GpuLock.NotTaken.class)
                .hasMessageContaining(locks + " (it belongs to uid " + owner + ", another user)")
                .hasMessageContaining(dir.resolve("own") + " (it belongs to uid " + owner + ", another user)")
                .satisfies(e -> assertThat(((GpuLock.NotTaken) e).code).isEqualTo("gpu-lock"));
        assertThat(locks.resolve("gpu-0.lock")).doesNotExist();
    }

    /**
     * The documented multi-user folder: the admin's (uid given as the admin's through the seam), sticky and
     * world-writable. Used; this user's new lock file is made rw-rw-rw- (another user's run must open it for an
     * fcntl write lock) and an admin's existing one is used as it is.
     */
    @Test
    void aStickyFolderOfTheAdminIsShared() throws Exception {
        Path locks = Files.createDirectories(dir.resolve("locks"));
        new ProcessBuilder("chmod", "1777", locks.toString()).start().waitFor();
        assertThat(mode(locks)).isEqualTo(01777);
        Path existing = Files.createFile(locks.resolve("gpu-1.lock"));
        Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rw-rw-rw-"));
        GpuLock.Identity otherUser = new GpuLock.Identity(4711, myUid(), dir.resolve("own"));
        try (GpuLock lock = take(locks, "0", otherUser);
                GpuLock other = take(locks, "1", otherUser)) {
            assertThat(lock.directory()).isEqualTo(locks.toRealPath());
            assertThat(mode(locks.resolve("gpu-0.lock"))).isEqualTo(0666);
            assertThat(mode(existing)).isEqualTo(0666);
        }
        assertThat(log).isEmpty();
        assertThat(dir.resolve("own")).doesNotExist();
    }

    /**
     * Item 2: any user may hold gpu-0.lock and write its holder file. The waiting line and the timeout's reason show
     * its text escaped (no ESC, no line break reaches the console) and the file's owner from the file system.
     */
    @Test
    void aForgedHolderFileIsShownEscapedWithItsOwner() throws Exception {
        Path locks = Files.createDirectories(dir.resolve("locks"));
        Files.writeString(
                locks.resolve("gpu-0.holder.json"),
                "{\"pid\":1,\"host\":\"h\",\"build\":\"\\u001b[32mgpu-sanitize: PASS\\u001b[0m\\n[gpu-sanitize] all"
                        + " clear\\r\",\"runDirectory\":\"/r\\u202e\",\"since\":\"now\",\"command\":\"old\"}");
        String owner = Files.getOwner(locks.resolve("gpu-0.holder.json")).getName();
        try (FileChannel channel = FileChannel.open(
                        locks.resolve("gpu-0.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            assertThatThrownBy(() -> takeWaiting(locks, "0").close())
                    .isInstanceOf(GpuLock.NotTaken.class)
                    .satisfies(e -> assertThat(e.getMessage())
                            .doesNotContain("\u001b")
                            .doesNotContain("\n")
                            .doesNotContain("\r")
                            .doesNotContain("\u202e")
                            .contains("\\e[32mgpu-sanitize: PASS\\e[0m\\n[gpu-sanitize] all clear\\r")
                            .contains("/r<U+202E>")
                            .contains("[holder file of user " + owner + " (uid " + myUid() + ")]"));
        }
        assertThat(log)
                .isNotEmpty()
                .allSatisfy(l -> assertThat(l).doesNotContain("\u001b").doesNotContain("\n"))
                .anyMatch(l -> l.contains("holder file of user " + owner));
    }

    /** A holder file that is a link is not read through it (it could name any file): the lock file's owner is shown. */
    @Test
    void aHolderFileThatIsALinkIsNotRead() throws Exception {
        Path locks = Files.createDirectories(dir.resolve("locks"));
        Path secret = Files.writeString(
                dir.resolve("secret.json"),
                "{\"pid\":1,\"host\":\"h\",\"build\":\"SECRET\",\"runDirectory\":\"/r\",\"since\":\"now\"}");
        Files.createSymbolicLink(locks.resolve("gpu-0.holder.json"), secret);
        try (FileChannel channel = FileChannel.open(
                        locks.resolve("gpu-0.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            assertThatThrownBy(() -> take(locks, "0").close())
                    .isInstanceOf(GpuLock.NotTaken.class)
                    .hasMessageContaining("another process (no readable gpu-0.holder.json; lock file of user ")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("SECRET"));
        }
    }
}
