package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Copies a directory tree as it is: files with their times and modes, symbolic links as links (never followed),
 * leaving out some paths and linking others. GNU {@code cp -a --reflink=auto} does the copying where there is one: on
 * a filesystem that shares blocks (XFS, Btrfs) a copy costs metadata only, on others it is a plain copy at disk speed.
 * Elsewhere Java copies file by file. A hard-link tree is never made: jobs rewrite files in place (a checkpoint
 * opened with "w"), which would write through to the original.
 */
final class TreeCopy {
    /** GNU cp's arguments for an exact copy that shares blocks where the filesystem can. */
    private static final List<String> CP = List.of("cp", "-a", "--reflink=auto", "--");
    /** Sources per cp process: far below any argument-length limit. */
    private static final int BATCH = 200;

    private static volatile Boolean gnuCp;

    private final Set<Path> skip;
    private final Set<Path> link;

    /**
     * @param skip absolute paths left out (the run directory when it is inside the working directory)
     * @param link absolute paths that become symbolic links to themselves in the copy (shared folders)
     */
    TreeCopy(Set<Path> skip, Set<Path> link) {
        this.skip = Set.copyOf(skip);
        this.link = Set.copyOf(link);
    }

    /** Copies the tree {@code from} into {@code to}, which must not exist yet. */
    void copy(Path from, Path to) throws IOException {
        createParent(to);
        Files.createDirectory(to);
        copyInto(from, to);
        copyTimes(from, to);
    }

    private void copyInto(Path dir, Path into) throws IOException {
        List<Path> whole = new ArrayList<>();
        try (var listing = Files.list(dir)) {
            for (Path entry : listing.sorted().toList()) {
                Path target = into.resolve(name(entry));
                if (skip.contains(entry)) {
                    continue;
                }
                if (link.contains(entry)) {
                    Files.createSymbolicLink(target, entry);
                } else if (holdsSpecial(entry) && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(target);
                    copyInto(entry, target);
                    copyTimes(entry, target);
                } else {
                    whole.add(entry);
                }
            }
        }
        copyWhole(whole, into);
    }

    /** Whether a path left out or linked lies inside this one. */
    private boolean holdsSpecial(Path dir) {
        return skip.stream().anyMatch(p -> p.startsWith(dir) && !p.equals(dir))
                || link.stream().anyMatch(p -> p.startsWith(dir) && !p.equals(dir));
    }

    private static void copyWhole(List<Path> entries, Path into) throws IOException {
        if (entries.isEmpty()) {
            return;
        }
        if (gnuCp()) {
            for (int i = 0; i < entries.size(); i += BATCH) {
                List<String> argv = new ArrayList<>(CP);
                entries.subList(i, Math.min(entries.size(), i + BATCH)).forEach(e -> argv.add(e.toString()));
                argv.add(into.toString() + "/");
                run(argv);
            }
            return;
        }
        for (Path entry : entries) {
            javaCopy(entry, into.resolve(name(entry)));
        }
    }

    private static void javaCopy(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectory(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(file).toString());
                if (attrs.isSymbolicLink()) {
                    Files.createSymbolicLink(target, Files.readSymbolicLink(file));
                } else if (attrs.isRegularFile()) {
                    Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                } // a socket or a fifo in a workspace is nothing a job reads back
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                copyTimes(dir, to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** An entry of a listing's own name (a listing's entries always have one). */
    private static String name(Path entry) {
        return String.valueOf(entry.getFileName());
    }

    private static void createParent(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent == null) {
            throw new IOException(path + " has no parent folder to copy into");
        }
        Files.createDirectories(parent);
    }

    private static void copyTimes(Path from, Path to) throws IOException {
        Files.setLastModifiedTime(to, Files.getLastModifiedTime(from, LinkOption.NOFOLLOW_LINKS));
    }

    /** Whether this machine's cp is GNU's (takes --reflink=auto); asked once. */
    static boolean gnuCp() {
        Boolean known = gnuCp;
        if (known == null) {
            try {
                Process p = new ProcessBuilder("cp", "--version")
                        .redirectErrorStream(true)
                        .start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                known = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 && out.contains("GNU coreutils");
            } catch (IOException e) {
                known = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                known = false;
            }
            gnuCp = known;
        }
        return known;
    }

    private static void run(List<String> argv) throws IOException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            if (p.waitFor() != 0) {
                throw new IOException(firstLine(out) + " (cp exit " + p.exitValue() + ")");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while copying the workspace", e);
        }
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl) + " ...";
    }
}
