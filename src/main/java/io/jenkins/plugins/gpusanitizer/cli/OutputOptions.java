package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where the report goes; the console always gets the short summary. */
final class OutputOptions {
    @Option(names = "--json", paramLabel = "FILE", description = "write the JSON report here.")
    Path json;

    @Option(names = "--html", paramLabel = "FILE", description = "write the self-contained HTML report here.")
    Path html;

    @Option(names = {"-q", "--quiet"}, description = "print only the verdict line.")
    boolean quiet;

    void write(Report report, PrintWriter out) {
        try {
            if (json != null) {
                ReportJson.write(report, json);
            }
            if (html != null) {
                Path parent = html.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                Files.writeString(html, new HtmlReport().page(report), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new io.jenkins.plugins.gpusanitizer.engine.parse.InputException(json != null ? json : html,
                    "cannot write report: " + e.getMessage());
        }
        ConsoleSummary.print(report, out, quiet);
    }
}
