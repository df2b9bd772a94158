package io.jenkins.plugins.gpusanitizer.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Runs the CLI in-process and captures what it prints. */
record CliRunner(int exit, String out, String err) {

    static CliRunner run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = GpuSanitizeCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new CliRunner(code, out.toString(), err.toString());
    }

    /**
     * A recorded run directory judged again ({@code analyze --run-dir RUN}), its report written under TMP; fails
     * unless the CLI gave a verdict (exit 0 to 3).
     */
    static JsonNode analyzeRunDir(Path run, Path tmp) {
        Path json = tmp.resolve(run.getFileName() + ".json");
        CliRunner r = run("analyze", "--run-dir", run.toString(), "--json", json.toString());
        if (r.exit() < 0 || r.exit() > 3) {
            throw new AssertionError("analyze --run-dir " + run + " exited " + r.exit() + ": " + r.out() + r.err());
        }
        return json(json);
    }

    static JsonNode json(Path file) {
        try {
            return ReportJson.mapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
