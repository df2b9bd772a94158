package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A folder the gate made deleted with everything in it: the CLI's copies of the working directory, an agent's run
 * folder. Links are removed as links, never followed (a shared dataset, a link beside the checkout), and a folder the
 * job made read-only ({@code chmod 555 outputs}) is opened first, so that it does not stay behind.
 */
public final class TreeDeletion {
    private TreeDeletion() {}

    /** What was deleted (files and their bytes), and what could not be: the paths, at most a few, with the reason. */
    public record Outcome(long files, long bytes, List<String> failed) {}

    static final int MAX_NAMED = 5;

    /**
     * Deletes {@code folder} and everything in it; null, and nothing done, where it is no folder (not there, or a link
     * or a file in its place: the caller decides).
     */
    public static Outcome delete(Path folder) {
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        long[] counts = new long[2];
        List<String> failed = new ArrayList<>();
        try {
            // no FOLLOW_LINKS: a link to a folder is visited as itself and deleted, its target never entered
            Files.walkFileTree(folder, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    openForDeletion(dir);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    try {
                        Files.delete(file);
                        counts[0]++;
                        counts[1] += attrs.isRegularFile() ? attrs.size() : 0;
                    } catch (IOException e) {
                        note(failed, folder, file, e);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    note(failed, folder, file, e);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                    try {
                        Files.delete(dir);
                    } catch (IOException x) {
                        note(failed, folder, dir, x);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            note(failed, folder, folder, e);
        }
        return new Outcome(counts[0], counts[1], List.copyOf(failed));
    }

    /** The owner may list, enter and change the folder: a job's {@code chmod 555 outputs} does not keep it. */
    private static void openForDeletion(Path dir) {
        try {
            Set<PosixFilePermission> p = EnumSet.copyOf(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS));
            if (p.addAll(EnumSet.of(
                    PosixFilePermission.OWNER_READ,
                    PosixFilePermission.OWNER_WRITE,
                    PosixFilePermission.OWNER_EXECUTE))) {
                Files.setPosixFilePermissions(dir, p);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // another user's folder, or no POSIX permissions: its entries fail to delete and are named
        }
    }

    private static void note(List<String> failed, Path folder, Path path, IOException e) {
        if (failed.size() < MAX_NAMED) {
            String why = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            failed.add(folder.relativize(path) + " (" + why + ")");
        }
    }
}
