package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes and reads the report JSON with Jackson. */
public final class ReportJson {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private ReportJson() {}

    public static String toJson(Report r) {
        try {
            return MAPPER.writeValueAsString(r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void write(Report r, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        MAPPER.writeValue(tmp.toFile(), r);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** Reads a report written earlier (a reference build's, a previous failing run's). */
    public static Report read(Path file) {
        try {
            return MAPPER.readValue(file.toFile(), Report.class);
        } catch (IOException e) {
            throw new InputException(
                    file, "not a gpu-sanitize report JSON: " + e.getMessage().split("\n", 2)[0]);
        }
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
