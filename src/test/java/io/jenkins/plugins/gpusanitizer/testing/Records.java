package io.jenkins.plugins.gpusanitizer.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * Recorded run directories kept as one xz-compressed zip per capture (src/test/resources/records/README.md), and
 * the raw corpus's archives (corpus/NAME.zip.xz). A zip of stored entries compressed as one xz stream lets the
 * many near-identical files of a capture share one dictionary (4.2 MB of deflated zips became 0.8 MB); the JDK
 * reads the zip, org.tukaani:xz (no dependencies of its own) the xz.
 */
public final class Records {
    private Records() {}

    /** This JVM's unpacked copy of each archive read through {@link #unpacked}, by resource path. */
    private static final Map<String, Path> UNPACKED = new ConcurrentHashMap<>();

    /** Unpacks {@code records/NAME.zip.xz} into {@code dir}; returns {@code dir}. */
    public static Path unzip(String name, Path dir) {
        return unpack("/records/" + name + ".zip.xz", dir);
    }

    private static Path unpack(String resource, Path dir) {
        try (InputStream raw = Records.class.getResourceAsStream(resource)) {
            if (raw == null) {
                throw new IllegalArgumentException("no archive " + resource + " among the test resources");
            }
            try (ZipInputStream zip = new ZipInputStream(new XZInputStream(new BufferedInputStream(raw)))) {
                for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                    Path target = dir.resolve(e.getName()).normalize();
                    if (!target.startsWith(dir)) {
                        throw new IllegalStateException(resource + ": entry outside its folder: " + e);
                    }
                    if (e.isDirectory()) {
                        Files.createDirectories(target);
                    } else {
                        Files.createDirectories(target.getParent());
                        Files.copy(zip, target);
                    }
                }
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A recorded capture as a folder, to read: {@code "NAME"} is the unpacked {@code records/NAME.zip.xz},
     * {@code "NAME/a/b"} a path inside it. Each archive is unpacked once per JVM (dozens of tests read the same
     * one) into a folder of its own under target/, removed when the JVM ends; every test of the JVM shares it,
     * so none may change it (one that must takes a copy with {@link #unzip}).
     */
    public static Path unpacked(String path) {
        int slash = path.indexOf('/');
        String name = slash < 0 ? path : path.substring(0, slash);
        Path root = archive("/records/" + name + ".zip.xz");
        return slash < 0 ? root : root.resolve(path.substring(slash + 1));
    }

    /** This JVM's shared, read-only unpacked copy of the archive at a test resource path (a {@code .zip.xz}). */
    public static Path archive(String resource) {
        return UNPACKED.computeIfAbsent(resource, Records::unpackOnce);
    }

    private static Path unpackOnce(String resource) {
        String name = resource.substring(resource.lastIndexOf('/') + 1).replace(".zip.xz", "");
        try {
            Path cache = Files.createDirectories(buildDirectory().resolve("records-unpacked"));
            Path dir = Files.createTempDirectory(cache, name + "-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir), "delete unpacked " + name));
            return unpack(resource, dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** target/ of the build running the tests (the folder above target/test-classes), else the temp folder. */
    private static Path buildDirectory() {
        CodeSource source = Records.class.getProtectionDomain().getCodeSource();
        if (source != null) {
            try {
                Path classes = Path.of(source.getLocation().toURI());
                if (Files.isDirectory(classes) && classes.getParent() != null) {
                    return classes.getParent();
                }
            } catch (URISyntaxException | IllegalArgumentException | FileSystemNotFoundException e) {
                // not a folder of classes: the temp folder does as well
            }
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            // a leftover under target/ goes with the next clean
        }
    }
}
