package io.jenkins.plugins.gpusanitizer.steps;

import hudson.remoting.VirtualChannel;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.RunWorkspaces;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.TreeDeletion;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import jenkins.MasterToSlaveFileCallable;

/**
 * The run directory on the agent ({@code WORKSPACE@tmp/gpu-sanitize/BUILD-ID}), kept private and left
 * with nothing secret (issue #41): created 0700 ({@link #createPrivate}); before the copy home, {@link
 * Seal} masks the build's secrets in every file in place (the job's stdout and stderr, the tools' logs,
 * report.json and report.html), makes folders 0700 and files 0600, and lists the regular files, and the
 * symbolic links and other special files, which are never followed nor copied (one made by the job
 * could point at the agent's or, on the built-in node, the controller's own files); {@link Read} hands a
 * piece of one regular file, opened without following a link, so a link made after the listing is refused
 * too; {@link Delete} removes the directory once everything was copied home.
 */
final class AgentRunFolder {
    /** The most one {@link Read} returns: one round trip per MiB of raw output. */
    static final int CHUNK = 1024 * 1024;

    static final Set<PosixFilePermission> PRIVATE_FOLDER = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");

    private AgentRunFolder() {}

    /** What {@link Seal} found: the regular files (relative, with '/'), and what it skipped, one line each. */
    record Sealed(boolean exists, ArrayList<String> files, ArrayList<String> skipped) implements Serializable {
        static Sealed absent() {
            return new Sealed(false, new ArrayList<>(), new ArrayList<>());
        }
    }

    /**
     * Creates the run directory and its parent folder private to the agent's user (0700 on POSIX), or makes
     * them so: what the run writes there (the job's output, command lines, the report) is nobody else's.
     */
    static void createPrivate(Path runDirectory) throws IOException {
        Path parent = runDirectory.toAbsolutePath().getParent();
        if (parent != null) {
            Path workspaceTemp = parent.getParent();
            if (workspaceTemp != null) {
                Files.createDirectories(workspaceTemp); // WORKSPACE@tmp, as core makes it
            }
            makePrivateFolder(parent);
        }
        makePrivateFolder(runDirectory);
    }

    private static void makePrivateFolder(Path folder) throws IOException {
        if (!posix()) {
            Files.createDirectories(folder);
            return;
        }
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            FileAttribute<Set<PosixFilePermission>> attribute = PosixFilePermissions.asFileAttribute(PRIVATE_FOLDER);
            try {
                Files.createDirectory(folder, attribute);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // a link or a file in the way: the run refuses to write through it
                if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
                    throw new IOException(folder + " exists and is not a folder", e);
                }
            }
        }
        Files.setPosixFilePermissions(folder, PRIVATE_FOLDER);
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    /** Masks in place, makes private, lists; see the class comment. */
    static final class Seal extends MasterToSlaveFileCallable<Sealed> {
        private static final long serialVersionUID = 1L;
        /** The values to mask (they are the agent's own environment, or were written there by the run). */
        private final ArrayList<String> secrets;
        /** Whether to rewrite files: only once the run ended (a live file would lose what is written meanwhile). */
        private final boolean mask;

        Seal(List<String> secrets, boolean mask) {
            this.secrets = new ArrayList<>(secrets);
            this.mask = mask;
        }

        @Override
        public Sealed invoke(File directory, VirtualChannel channel) throws IOException {
            Path root = directory.toPath();
            if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
                return Sealed.absent();
            }
            SecretMasker masker = new SecretMasker(secrets);
            boolean posix = posix();
            ArrayList<String> files = new ArrayList<>();
            ArrayList<String> skipped = new ArrayList<>();
            // no FOLLOW_LINKS: a link (to a file or a folder) is visited as itself, never entered
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    if (posix) {
                        Files.setPosixFilePermissions(dir, PRIVATE_FOLDER);
                    }
                    if (dir.equals(root.resolve(RunWorkspaces.FOLDER))) {
                        // each run's copy of the workspace stays on the agent (deleted with the run folder): what a
                        // run changed there is listed in its workspace.json, which comes home
                        skipped.add(RunWorkspaces.FOLDER + "/ (each run's copy of the workspace; its changes are"
                                + " listed in the run's workspace.json)");
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    String relative = relative(root, file);
                    if (attrs.isSymbolicLink()) {
                        skipped.add(relative + " -> " + target(file) + " (a symbolic link)");
                        return FileVisitResult.CONTINUE;
                    }
                    if (!attrs.isRegularFile()) {
                        skipped.add(relative + " (not a regular file)");
                        return FileVisitResult.CONTINUE;
                    }
                    if (mask && !masker.isEmpty()) {
                        maskInPlace(file, masker, posix);
                    }
                    if (posix) {
                        Files.setPosixFilePermissions(file, PRIVATE_FILE);
                    }
                    files.add(relative);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    skipped.add(relative(root, file) + " (unreadable: " + e.getMessage() + ")");
                    return FileVisitResult.CONTINUE;
                }
            });
            return new Sealed(true, files, skipped);
        }

        private static String target(Path link) {
            try {
                return Files.readSymbolicLink(link).toString();
            } catch (IOException e) {
                return "?";
            }
        }

        /** The file rewritten with its secrets masked, through a private file beside it moved over it. */
        private static void maskInPlace(Path file, SecretMasker masker, boolean posix) throws IOException {
            Path parent = file.getParent();
            if (parent == null) {
                throw new IOException(file + " has no folder");
            }
            Path masked = posix
                    ? Files.createTempFile(
                            parent, ".masking-", ".tmp", PosixFilePermissions.asFileAttribute(PRIVATE_FILE))
                    : Files.createTempFile(parent, ".masking-", ".tmp");
            try {
                try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS);
                        OutputStream out = Files.newOutputStream(masked)) {
                    masker.copy(in, out);
                }
                Files.move(masked, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(masked);
            }
        }
    }

    /** Up to {@link #CHUNK} bytes of one regular file from {@code offset}; empty at its end. */
    static final class Read extends MasterToSlaveFileCallable<byte[]> {
        private static final long serialVersionUID = 1L;
        private final String relative;
        private final long offset;

        Read(String relative, long offset) {
            this.relative = relative;
            this.offset = offset;
        }

        @Override
        public byte[] invoke(File directory, VirtualChannel channel) throws IOException {
            Path root = directory.toPath().toAbsolutePath().normalize();
            Path file = root.resolve(relative).normalize();
            if (!file.startsWith(root) || file.equals(root)) {
                throw new IOException(relative + " is outside the run directory");
            }
            // every folder on the way must be a folder, not a link to one
            for (Path at = file.getParent(); at != null && !at.equals(root); at = at.getParent()) {
                if (!Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) {
                    throw new IOException(relative + ": " + root.relativize(at) + " is not a folder (a link?)");
                }
            }
            BasicFileAttributes attrs =
                    Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attrs.isRegularFile()) {
                throw new IOException(relative + " is not a regular file (a link?)");
            }
            try (SeekableByteChannel in =
                    Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
                in.position(offset);
                ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
                while (buffer.hasRemaining() && in.read(buffer) > 0) {
                    // fill the chunk: fewer round trips
                }
                return Arrays.copyOf(buffer.array(), buffer.position());
            }
        }
    }

    /**
     * Deletes the run directory, links removed as links (never followed), read-only folders the job made opened first
     * ({@link TreeDeletion}). True when it is gone.
     */
    static final class Delete extends MasterToSlaveFileCallable<Boolean> {
        private static final long serialVersionUID = 1L;

        @Override
        public Boolean invoke(File directory, VirtualChannel channel) throws IOException {
            Path root = directory.toPath();
            if (TreeDeletion.delete(root) == null) {
                Files.deleteIfExists(root); // a link or a file in its place: removed as itself, never followed
            }
            return !Files.exists(root, LinkOption.NOFOLLOW_LINKS);
        }
    }

    static String relative(Path root, Path file) {
        return root.relativize(file).toString().replace(File.separatorChar, '/');
    }
}
