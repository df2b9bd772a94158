package io.jenkins.plugins.gpusanitizer.testing;

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

/** Recorded run directories kept as one zip per capture (src/test/resources/records/README.md). */
public final class Records {
    private Records() {}

    /** This JVM's unpacked copy of each zip read through {@link #unpacked}, by zip name. */
    private static final Map<String, Path> UNPACKED = new ConcurrentHashMap<>();

    /** Unpacks {@code records/NAME.zip} into {@code dir}; returns {@code dir}. */
    public static Path unzip(String name, Path dir) {
        try (InputStream raw = Records.class.getResourceAsStream("/records/" + name + ".zip")) {
            if (raw == null) {
                throw new IllegalArgumentException("no recorded capture records/" + name + ".zip");
            }
            try (ZipInputStream zip = new ZipInputStream(raw)) {
                for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                    Path target = dir.resolve(e.getName()).normalize();
                    if (!target.startsWith(dir)) {
                        throw new IllegalStateException("records/" + name + ".zip: entry outside its folder: " + e);
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
     * A recorded capture as a folder, to read: {@code "NAME"} is the unpacked {@code records/NAME.zip},
     * {@code "NAME/a/b"} a path inside it. Each zip is unpacked once per JVM (the biggest, 19 MB, takes ~1.4 s
     * here, and dozens of tests read it) into a folder of its own under target/, removed when the JVM ends;
     * every test of the JVM shares it, so none may change it (one that must takes a copy with {@link #unzip}).
     */
    public static Path unpacked(String path) {
        int slash = path.indexOf('/');
        String name = slash < 0 ? path : path.substring(0, slash);
        Path root = UNPACKED.computeIfAbsent(name, Records::unpackOnce);
        return slash < 0 ? root : root.resolve(path.substring(slash + 1));
    }

    private static Path unpackOnce(String name) {
        try {
            Path cache = Files.createDirectories(buildDirectory().resolve("records-unpacked"));
            Path dir = Files.createTempDirectory(cache, name + "-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir), "delete unpacked " + name));
            return unzip(name, dir);
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
