package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import java.io.IOException;
import java.io.UncheckedIOException;
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

    /** Writes the report (never through a link planted at the path: {@link OutputFile}). */
    public static void write(Report r, Path file) throws IOException {
        OutputFile.write(file, out -> MAPPER.writeValue(out, r));
    }

    /**
     * Reads a report written earlier (a reference build's, a previous failing run's).
     *
     * @throws InputException when the file is not a report: unreadable, not JSON, or valid JSON without
     *     what every report holds ({@code {}}, {@code null}, a defect without its fingerprint)
     */
    public static Report read(Path file) {
        Report r;
        try {
            r = MAPPER.readValue(file.toFile(), Report.class);
        } catch (IOException e) {
            throw new InputException(
                    file, "not a gpu-sanitize report JSON: " + e.getMessage().split("\n", 2)[0]);
        }
        String missing = r == null
                ? "it is empty (null)"
                : r.schemaVersion() < 1
                        ? "no schemaVersion"
                        : r.verdict() == null
                                ? "no verdict"
                                : r.defects() == null
                                        ? "no defects[]"
                                        : r.reasons() == null
                                                ? "no reasons[]"
                                                : r.defects().stream().anyMatch(d -> d == null || d.id() == null)
                                                        ? "a defect without an id"
                                                        : null;
        if (missing != null) {
            throw new InputException(file, "not a gpu-sanitize report JSON: " + missing);
        }
        return r;
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
