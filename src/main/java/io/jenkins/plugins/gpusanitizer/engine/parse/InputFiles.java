package io.jenkins.plugins.gpusanitizer.engine.parse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Opens an input file for a parser, turning I/O failures into the one-line {@link InputException}. */
final class InputFiles {
    /** What a parser does with the open stream. */
    @FunctionalInterface
    interface Reading<T> {
        T read(InputStream in) throws IOException;
    }

    private InputFiles() {}

    static <T> T read(Path file, Reading<T> reading) {
        try (InputStream in = Files.newInputStream(file)) {
            return reading.read(in);
        } catch (NoSuchFileException e) {
            throw new InputException(file, "no such file");
        } catch (IOException e) {
            throw new InputException(file, "cannot read: " + e.getMessage(), e);
        }
    }
}
