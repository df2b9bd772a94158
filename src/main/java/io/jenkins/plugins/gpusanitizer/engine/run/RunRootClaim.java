package io.jenkins.plugins.gpusanitizer.engine.run;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The run directory taken for this run, and only where nobody else can write in it. On a shared GPU machine another
 * user can make {@code /tmp/gate-out} first, empty and writable by all, and wait: every file the gate then writes
 * there (the sanitizer's log, the probe's work records, {@code report.json}) could be replaced or planted as a link
 * before it is read or written, and a PASS made of nothing. So the last folder of {@code --out} is made by this
 * process ({@code mkdir} fails when it exists), and one that exists already is used only when it is this user's
 * own, writable by no one else, and empty. The folders above it are the user's choice (a sticky {@code /tmp} is
 * fine: nobody else can rename or replace a folder of ours in it).
 */
final class RunRootClaim {
    private RunRootClaim() {}

    /** Takes {@code root}: made here, or checked when it exists. A RunException says why it cannot be used. */
    static void claim(Path root) {
        try {
            Path parent = root.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.createDirectory(root);
        } catch (FileAlreadyExistsException e) {
            checkExisting(root);
        } catch (IOException e) {
            throw new RunException("cannot create run directory " + root + ": " + e.getMessage());
        }
    }

    private static void checkExisting(Path root) {
        if (!Files.isDirectory(root)) {
            throw new RunException("run directory " + root + " exists and is not a folder: give a new --out");
        }
        try {
            Object owner = Files.getAttribute(root, "unix:uid");
            Object self = Files.getAttribute(Path.of("/proc/self"), "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!owner.equals(self)) {
                throw new RunException("run directory " + root + " belongs to another user (uid " + owner
                        + "): what they can write there could change the verdict; give a new --out");
            }
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(root);
            if (p.contains(PosixFilePermission.GROUP_WRITE) || p.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw new RunException("run directory " + root + " is writable by others ("
                        + PosixFilePermissions.toString(p)
                        + "): what they write there could change the verdict; chmod go-w it or give a new --out");
            }
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            // no unix attributes (not Linux): the emptiness rule alone
        } catch (IOException e) {
            throw new RunException("cannot use run directory " + root + ": " + e.getMessage());
        }
        try (var listing = Files.list(root)) {
            if (listing.findAny().isPresent()) {
                throw new RunException("run directory " + root
                        + " is not empty: give a new --out (run directories are never overwritten)");
            }
        } catch (IOException e) {
            throw new RunException("cannot use run directory " + root + ": " + e.getMessage());
        }
    }
}
