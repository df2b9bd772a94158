package io.jenkins.plugins.gpusanitizer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/** Recorded run directories kept as one zip per capture (src/test/resources/records/README.md). */
public final class Records {
    private Records() {}

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
}
