package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceChanges.Change;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceChanges.Entry;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceSnapshot.PathState;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceSnapshot.Type;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The write-back's rules, in one place: the working directory is given what the plain run changed in its copy, and
 * nothing else is touched. A change is applied only where the working directory still holds, at that path, what it held
 * when the gate started (the baseline); a path that moved there meanwhile too is a {@link Outcome#conflicts conflict},
 * left as it is and listed. What anyone else wrote meanwhile stays. A file is written under a temporary name beside
 * its place and renamed into it, so a reader never sees half a file; removals go deepest first, creations folder
 * first, folders' modes last (a read-only folder is still filled).
 */
final class WriteBack {
    /**
     * What the write-back did.
     *
     * @param written   paths given the run's state
     * @param conflicts paths the run changed that changed in the working directory meanwhile too: left alone
     * @param failed    paths that could not be written back, with the error
     * @param others    paths that changed in the working directory while the runs went, not by the write-back (a
     *                  parallel branch's report, or a run writing through the workspace's absolute path): kept
     */
    record Outcome(List<String> written, List<Problem> conflicts, List<Problem> failed, List<String> others) {}

    /** A path and why it was not written back. */
    public record Problem(String path, String why) {}

    private final Path original;
    private final Path copy;
    private final List<Path> copySpellings;
    private final Path originalTarget;
    private final List<String> written = new ArrayList<>();
    private final List<Problem> conflicts = new ArrayList<>();
    private final List<Problem> failed = new ArrayList<>();
    private final Set<String> made = new HashSet<>();

    /**
     * @param original      the working directory (the tree copied)
     * @param copy          the run's copy of it
     * @param copySpellings the copy's paths as a link written in it may name them (logical and real)
     * @param originalTarget what such a link names instead once written back
     */
    WriteBack(Path original, Path copy, List<Path> copySpellings, Path originalTarget) {
        this.original = original;
        this.copy = copy;
        this.copySpellings = List.copyOf(copySpellings);
        this.originalTarget = originalTarget;
    }

    /**
     * @param changes  the run's changes in its copy
     * @param baseline the working directory when the gate started
     * @param now      the working directory now
     */
    Outcome apply(WorkspaceChanges changes, WorkspaceSnapshot baseline, WorkspaceSnapshot now) {
        Set<String> moved = new HashSet<>();
        for (Entry e : changes.entries()) {
            PathState there = now.get(e.path());
            if (PathState.same(there, e.after())) {
                continue; // already as the run left it (the same folder made by both)
            }
            if (now.underSkipped(e.path()) || baseline.underSkipped(e.path())) {
                conflicts.add(new Problem(e.path(), "unreadable in the working directory: left as it is"));
            } else if (!PathState.same(there, baseline.get(e.path()))) {
                conflicts.add(new Problem(e.path(), "changed in the working directory meanwhile too: left as it is"));
            } else {
                moved.add(e.path());
            }
        }
        // removals, deepest first: what a removed folder held goes before it
        List<Entry> reversed = new ArrayList<>(changes.entries());
        java.util.Collections.reverse(reversed);
        for (Entry e : reversed) {
            if (moved.contains(e.path())
                    && e.before() != null
                    && e.before().type() == Type.DIR
                    && (e.after() == null || e.after().type() != Type.DIR)) {
                removeFolder(e, moved);
            } else if (moved.contains(e.path()) && e.change() == Change.REMOVED) {
                remove(e);
            }
        }
        for (Entry e : changes.entries()) {
            if (moved.contains(e.path()) && e.after() != null) {
                install(e);
            }
        }
        for (Entry e : reversed) {
            if (made.contains(e.path()) && e.after().type() == Type.DIR) {
                setMode(e);
            }
        }
        return new Outcome(List.copyOf(written), List.copyOf(conflicts), List.copyOf(failed), others(baseline, now));
    }

    private void remove(Entry e) {
        Path there = original.resolve(e.path());
        try {
            Files.deleteIfExists(there);
            written.add(e.path());
        } catch (IOException x) {
            failed.add(new Problem(e.path(), oneLine(x)));
        }
    }

    private void removeFolder(Entry e, Set<String> moved) {
        Path there = original.resolve(e.path());
        try {
            Files.deleteIfExists(there);
            if (e.after() == null) {
                written.add(e.path());
            }
        } catch (DirectoryNotEmptyException x) {
            moved.remove(e.path()); // nothing goes in its place
            conflicts.add(new Problem(
                    e.path(),
                    "removed by the run, but it holds what the run did not remove (written meanwhile): kept"));
        } catch (IOException x) {
            moved.remove(e.path());
            failed.add(new Problem(e.path(), oneLine(x)));
        }
    }

    private void install(Entry e) {
        Path there = original.resolve(e.path());
        Path parent = there.getParent();
        String parentRel = parentOf(e.path());
        if (parentRel != null && !made.contains(parentRel) && !Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
            conflicts.add(new Problem(
                    e.path(), "its folder was removed or replaced in the working directory: not " + "written back"));
            return;
        }
        try {
            switch (e.after().type()) {
                case DIR -> {
                    if (!Files.isDirectory(there, LinkOption.NOFOLLOW_LINKS)) {
                        Files.deleteIfExists(there); // a file the run replaced with a folder
                        Files.createDirectory(there);
                    }
                }
                case FILE -> {
                    Path temp = temporary(there);
                    Files.copy(
                            copy.resolve(e.path()),
                            temp,
                            StandardCopyOption.COPY_ATTRIBUTES,
                            LinkOption.NOFOLLOW_LINKS);
                    Files.setPosixFilePermissions(
                            temp, WorkspaceSnapshot.permissions(e.after().mode()));
                    Files.setLastModifiedTime(temp, FileTime.from(e.after().mtime(), TimeUnit.NANOSECONDS));
                    moveIntoPlace(temp, there);
                }
                case LINK -> {
                    Path temp = temporary(there);
                    Files.createSymbolicLink(temp, linkTarget(e.after().link()));
                    moveIntoPlace(temp, there);
                }
            }
            made.add(e.path());
            written.add(e.path());
        } catch (IOException x) {
            failed.add(new Problem(e.path(), oneLine(x)));
        }
    }

    private static void moveIntoPlace(Path temp, Path there) throws IOException {
        try {
            Files.move(temp, there, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException x) {
            Files.deleteIfExists(temp);
            throw x;
        }
    }

    private void setMode(Entry e) {
        try {
            Files.setPosixFilePermissions(
                    original.resolve(e.path()),
                    WorkspaceSnapshot.permissions(e.after().mode()));
        } catch (IOException x) {
            failed.add(new Problem(e.path(), "its mode: " + oneLine(x)));
        }
    }

    /** A link the run wrote to a path in its copy names the working directory's path instead. */
    private Path linkTarget(String target) {
        Path link = Path.of(target);
        for (Path spelling : copySpellings) {
            if (link.isAbsolute() && link.normalize().startsWith(spelling)) {
                return originalTarget.resolve(spelling.relativize(link.normalize()));
            }
        }
        return link;
    }

    private static Path temporary(Path there) {
        String name = String.valueOf(there.getFileName());
        // well under NAME_MAX whatever the name's length
        String head = name.length() > 100 ? name.substring(0, 100) : name;
        return there.resolveSibling(
                "." + head + ".gpu-sanitize-" + UUID.randomUUID().toString().substring(0, 8));
    }

    private static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? null : path.substring(0, slash);
    }

    /** The paths that moved in the working directory since the gate started, the write-back's own left out. */
    private List<String> others(WorkspaceSnapshot baseline, WorkspaceSnapshot now) {
        TreeSet<String> paths = new TreeSet<>(baseline.entries().keySet());
        paths.addAll(now.entries().keySet());
        Set<String> ours = new HashSet<>(written);
        List<String> others = new ArrayList<>();
        for (String path : paths) {
            if (!ours.contains(path) && !PathState.same(baseline.get(path), now.get(path)) && !now.underSkipped(path)) {
                others.add(path);
            }
        }
        return others;
    }

    private static String oneLine(IOException e) {
        String name =
                e instanceof NoSuchFileException ? "no such file" : e.getClass().getSimpleName();
        String message = e.getMessage() == null ? name : name + ": " + e.getMessage();
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
