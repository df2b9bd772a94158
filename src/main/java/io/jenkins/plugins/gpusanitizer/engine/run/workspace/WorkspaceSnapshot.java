package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * What a tree held at one moment, path by path (type, size, modification time, mode, link target), and what it could
 * not read or would not copy, each with a one-line reason. The write-back compares such snapshots instead of the trees
 * themselves: the working directory before the gate (the baseline), a run's copy as it started and as it ended.
 *
 * @param entries every entry below the root by its path relative to it ('/'-separated), the root itself left out
 * @param skipped entries left out, with why: unreadable, a socket or fifo, a gate's run directory
 */
public record WorkspaceSnapshot(Map<String, PathState> entries, List<Skipped> skipped) {
    static final ObjectMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /** How a path is: what the write-back compares. */
    public enum Type {
        FILE,
        DIR,
        LINK
    }

    /**
     * One path's state. Folders compare by type and mode only: their times move whenever anything inside does, which
     * the entries inside already say.
     *
     * @param mtime nanoseconds since the epoch
     * @param mode  the permission bits (0755), 0 for a link
     * @param link  a link's target as written, else null
     */
    public record PathState(Type type, long size, long mtime, int mode, String link) {
        /** Whether two states are the same for the write-back (null: no entry). */
        static boolean same(PathState a, PathState b) {
            if (a == null || b == null) {
                return a == b;
            }
            if (a.type != b.type) {
                return false;
            }
            return switch (a.type) {
                case DIR -> a.mode == b.mode;
                case LINK -> a.link.equals(b.link);
                case FILE -> a.size == b.size && a.mtime == b.mtime && a.mode == b.mode;
            };
        }
    }

    /** An entry left out, and why (one line). */
    public record Skipped(String path, String reason) {}

    public WorkspaceSnapshot {
        entries = new TreeMap<>(entries);
        skipped = List.copyOf(skipped);
    }

    public PathState get(String path) {
        return entries.get(path);
    }

    /** Whether the path lies at or under a skipped one (its state is not known). */
    boolean underSkipped(String path) {
        return skipped.stream().anyMatch(s -> path.equals(s.path()) || path.startsWith(s.path() + "/"));
    }

    /**
     * Walks the tree, links never followed.
     *
     * @param root     the tree
     * @param leftOut  absolute paths left out without a word (the current run directory, shared paths)
     * @param why      for a folder left out on sight (a gate's run directory), why; null for any other
     */
    static WorkspaceSnapshot of(Path root, Set<Path> leftOut, Function<Path, String> why) throws IOException {
        Map<String, PathState> entries = new TreeMap<>();
        List<Skipped> skipped = new ArrayList<>();
        new Walk(root, leftOut, why, entries, skipped).folder(root);
        return new WorkspaceSnapshot(entries, skipped);
    }

    private record Walk(
            Path root,
            Set<Path> leftOut,
            Function<Path, String> why,
            Map<String, PathState> entries,
            List<Skipped> skipped) {
        void folder(Path dir) throws IOException {
            List<Path> children = new ArrayList<>();
            try (DirectoryStream<Path> listing = Files.newDirectoryStream(dir)) {
                listing.forEach(children::add);
            } catch (AccessDeniedException e) {
                if (dir.equals(root)) {
                    throw new IOException("cannot read the folder " + root + ": permission denied", e);
                }
                skip(dir, "cannot be listed (permission denied): left out");
                return;
            }
            for (Path child : children) {
                entry(child);
            }
        }

        private void entry(Path path) throws IOException {
            if (leftOut.contains(path)) {
                return;
            }
            PosixFileAttributes attrs;
            try {
                attrs = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                return; // removed while walked: it is not there
            } catch (AccessDeniedException e) {
                skip(path, "cannot be read (permission denied): left out");
                return;
            }
            String rel = rel(path);
            if (attrs.isSymbolicLink()) {
                entries.put(
                        rel,
                        new PathState(
                                Type.LINK, 0, 0, 0, Files.readSymbolicLink(path).toString()));
            } else if (attrs.isDirectory()) {
                String leftOutWhy = why.apply(path);
                if (leftOutWhy != null) {
                    skip(path, leftOutWhy);
                } else if (!Files.isReadable(path) || !Files.isExecutable(path)) {
                    skip(path, "cannot be listed (permission denied, owner uid " + owner(path) + "): left out");
                } else {
                    entries.put(rel, new PathState(Type.DIR, 0, 0, mode(attrs), null));
                    folder(path);
                }
            } else if (attrs.isRegularFile()) {
                if (Files.isReadable(path)) {
                    entries.put(
                            rel,
                            new PathState(
                                    Type.FILE,
                                    attrs.size(),
                                    attrs.lastModifiedTime().to(TimeUnit.NANOSECONDS),
                                    mode(attrs),
                                    null));
                } else {
                    skip(path, "cannot be read (permission denied, owner uid " + owner(path) + "): left out");
                }
            } else {
                skip(path, special(path) + ": not copied");
            }
        }

        private void skip(Path path, String why) {
            skipped.add(new Skipped(rel(path), why));
        }

        private String rel(Path path) {
            return root.relativize(path).toString().replace('\\', '/');
        }
    }

    /** The permission bits of a POSIX mode (0755). */
    static int mode(PosixFileAttributes attrs) {
        int mode = 0;
        for (PosixFilePermission p : attrs.permissions()) {
            mode |= 0400 >> p.ordinal();
        }
        return mode;
    }

    /** A mode as permissions, for setting it back. */
    static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = java.util.EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission p : PosixFilePermission.values()) {
            if ((mode & (0400 >> p.ordinal())) != 0) {
                set.add(p);
            }
        }
        return set;
    }

    private static String owner(Path path) {
        try {
            return String.valueOf(Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "unknown";
        }
    }

    /** What kind of special file it is, from the mode's file type bits. */
    private static String special(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return switch (mode & 0170000) {
                case 0140000 -> "a socket";
                case 0010000 -> "a fifo";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                default -> "a special file";
            };
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "a special file";
        }
    }

    void write(Path file) throws IOException {
        Path folder = file.toAbsolutePath().getParent();
        if (folder != null) {
            Files.createDirectories(folder);
        }
        JSON.writeValue(file.toFile(), this);
    }

    static WorkspaceSnapshot read(Path file) throws IOException {
        try {
            return JSON.readValue(file.toFile(), WorkspaceSnapshot.class);
        } catch (IOException e) {
            throw new IOException("cannot read the workspace snapshot " + file + ": " + e.getMessage(), e);
        }
    }
}
