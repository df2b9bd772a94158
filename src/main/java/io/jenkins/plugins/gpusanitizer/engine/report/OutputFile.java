package io.jenkins.plugins.gpusanitizer.engine.report;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Writes a report file without following what someone may have planted at its path (a pull request
 * can commit a symbolic link into the workspace): a symbolic link, a directory or a device at the
 * path is refused; the content goes to a new file with a random name, created exclusively
 * ({@code CREATE_NEW}, which never follows a link) beside the target, then renamed over it. A rename
 * replaces a link itself, never what it points to.
 */
public final class OutputFile {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What goes into the file. */
    @FunctionalInterface
    public interface Writing {
        void write(OutputStream out) throws IOException;
    }

    private OutputFile() {}

    /**
     * Refuses a path that must not be written: a symbolic link, or something that exists and is not a
     * regular file. A path that does not exist yet is fine.
     *
     * @throws FileSystemException naming the file and why
     */
    public static void check(Path target) throws FileSystemException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(target, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new FileSystemException(target.toString(), null, "cannot check the output path: " + e.getMessage());
        }
        if (a.isSymbolicLink()) {
            throw new FileSystemException(target.toString(), null, "is a symbolic link; refusing to write through it");
        }
        if (!a.isRegularFile()) {
            throw new FileSystemException(
                    target.toString(),
                    null,
                    "exists and is not a regular file ("
                            + (a.isDirectory() ? "a directory" : "a device or special file")
                            + "); refusing to replace it");
        }
    }

    public static void writeString(Path target, String text) throws IOException {
        write(target, out -> out.write(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Writes the file through a fresh temporary file in its folder, renamed over it at the end. */
    public static void write(Path target, Writing writing) throws IOException {
        Path file = target.toAbsolutePath().normalize();
        Path parent = file.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        check(file);
        Path tmp = null;
        OutputStream out = null;
        for (int i = 0; out == null; i++) {
            tmp = file.resolveSibling(
                    "." + file.getFileName() + "." + HexFormat.of().formatHex(random()) + ".tmp");
            try {
                out = Files.newOutputStream(
                        tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            } catch (FileAlreadyExistsException e) {
                if (i >= 10) {
                    throw e;
                }
            }
        }
        try (OutputStream o = out) {
            writing.write(o);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        try {
            check(file);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static byte[] random() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return b;
    }
}
