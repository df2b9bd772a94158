package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a run changed in its copy of the working directory, against the working directory it was copied from: files
 * (and links) it created, rewrote or removed. A file counts as rewritten when its size or its modification time
 * differs: the copy kept both, so a file the run did not touch matches.
 */
public final class WorkspaceChanges {
    /** How a path changed. */
    public enum Change {
        NEW,
        CHANGED,
        REMOVED
    }

    /** One changed path, relative to the working directory; size 0 for a removed one. */
    public record Entry(Change change, String path, long bytes) {}

    /** The entries a manifest lists; the count of the rest is said. */
    static final int LISTED = 2000;

    private final List<Entry> entries;

    private WorkspaceChanges(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    public List<Entry> entries() {
        return entries;
    }

    /** The bytes of the files the run created or rewrote. */
    public long bytesWritten() {
        return entries.stream().mapToLong(Entry::bytes).sum();
    }

    /**
     * @param original the working directory
     * @param copy     a run's copy of it
     * @param ignored  absolute paths inside the original that were not copied or were linked (left alone here)
     */
    static WorkspaceChanges between(Path original, Path copy, Set<Path> ignored) throws IOException {
        TreeMap<String, Entry> found = new TreeMap<>();
        Files.walkFileTree(copy, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                Path there = original.resolve(copy.relativize(dir).toString());
                return ignored.contains(there) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String rel = copy.relativize(file).toString();
                Path there = original.resolve(rel);
                if (ignored.contains(there) || attrs.isDirectory()) {
                    return FileVisitResult.CONTINUE; // a shared folder's link
                }
                if (!Files.exists(there, LinkOption.NOFOLLOW_LINKS)) {
                    found.put(rel, new Entry(Change.NEW, rel, attrs.size()));
                } else if (differs(file, attrs, there)) {
                    found.put(rel, new Entry(Change.CHANGED, rel, attrs.size()));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE; // removed while walked: a run's leftover still deleting
            }
        });
        Files.walkFileTree(original, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (ignored.contains(dir)) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return Files.isDirectory(copy.resolve(original.relativize(dir).toString()), LinkOption.NOFOLLOW_LINKS)
                        ? FileVisitResult.CONTINUE
                        : removedTree(dir);
            }

            private FileVisitResult removedTree(Path dir) {
                String rel = original.relativize(dir).toString();
                found.put(rel, new Entry(Change.REMOVED, rel, 0));
                return FileVisitResult.SKIP_SUBTREE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                String rel = original.relativize(file).toString();
                if (!ignored.contains(file) && !Files.exists(copy.resolve(rel), LinkOption.NOFOLLOW_LINKS)) {
                    found.put(rel, new Entry(Change.REMOVED, rel, 0));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        return new WorkspaceChanges(new ArrayList<>(found.values()));
    }

    private static boolean differs(Path file, BasicFileAttributes attrs, Path there) throws IOException {
        BasicFileAttributes was = Files.readAttributes(there, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attrs.isSymbolicLink() || was.isSymbolicLink()) {
            return attrs.isSymbolicLink() != was.isSymbolicLink()
                    || !Files.readSymbolicLink(file).equals(Files.readSymbolicLink(there));
        }
        return was.isDirectory()
                || attrs.size() != was.size()
                || !attrs.lastModifiedTime().equals(was.lastModifiedTime());
    }

    /**
     * Makes the working directory hold what the run left in its copy: its new and rewritten files copied over, what
     * it removed removed.
     */
    void applyTo(Path original, Path copy) throws IOException {
        for (Entry e : entries) {
            Path there = original.resolve(e.path());
            if (e.change() == Change.REMOVED) {
                deleteTree(there);
            } else {
                TreeCopy.copyFile(copy.resolve(e.path()), there);
            }
        }
    }

    private static void deleteTree(Path path) throws IOException {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            try (var listing = Files.list(path)) {
                for (Path p : listing.toList()) {
                    deleteTree(p);
                }
            }
        }
        Files.deleteIfExists(path);
    }

    void writeManifest(Path file, String workspace, String how) throws IOException {
        Files.writeString(file, WorkspaceManifest.text(workspace, how, this, LISTED), StandardCharsets.UTF_8);
    }
}
