package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.ReferenceComparison;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.report.export.JunitExport;
import io.jenkins.plugins.gpusanitizer.engine.report.export.SarifExport;
import io.jenkins.plugins.gpusanitizer.engine.report.export.WarningsNgExport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where the report goes; the console always gets the short summary. */
final class OutputOptions {
    @Option(names = "--json", paramLabel = "FILE", description = "write the JSON report here.")
    Path json;

    @Option(
            names = "--html",
            paramLabel = "FILE",
            description = "write the HTML report here (its stylesheet report.css goes next to it).")
    Path html;

    @Option(
            names = "--junit",
            paramLabel = "FILE",
            description = "write the report as JUnit XML (phases and defects as test cases).")
    Path junit;

    @Option(names = "--sarif", paramLabel = "FILE", description = "write the report as SARIF 2.1.0.")
    Path sarif;

    @Option(
            names = "--warnings-ng",
            paramLabel = "FILE",
            description = "write warnings-ng's native JSON issues (recordIssues tool: issues(pattern: FILE)).")
    Path warningsNg;

    @Option(
            names = "--reference",
            paramLabel = "REPORT",
            description =
                    "compare with an earlier report.json (the target branch's): defects become new or outstanding, gone ones are listed as fixed.")
    Path reference;

    @Option(
            names = "--fail-on",
            paramLabel = "new|all",
            description = "with --reference: 'new' lets only new defects decide the verdict (default all).")
    String failOn = "all";

    @Option(
            names = {"-q", "--quiet"},
            description = "print only the verdict line.")
    boolean quiet;

    /** Applies --reference, when given (analyze; run passes it to the runner instead). */
    Report compare(Report report) {
        if (reference == null) {
            return report;
        }
        return ReferenceComparison.apply(report, ReportJson.read(reference), reference.toString(), newOnly());
    }

    boolean newOnly() {
        if (!failOn.equals("new") && !failOn.equals("all")) {
            throw new IllegalArgumentException("--fail-on: expected new or all, got '" + failOn + "'");
        }
        return failOn.equals("new");
    }

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
                new HtmlReport().writePage(report, html);
            }
            if (junit != null) {
                JunitExport.write(report, junit);
            }
            if (sarif != null) {
                SarifExport.write(report, sarif);
            }
            if (warningsNg != null) {
                WarningsNgExport.write(report, warningsNg);
            }
        } catch (IOException e) {
            throw new io.jenkins.plugins.gpusanitizer.engine.parse.InputException(
                    Path.of("report output"), "cannot write: " + e.getMessage());
        }
        ConsoleSummary.print(report, out, quiet);
    }
}
