package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.OutputFile;
import io.jenkins.plugins.gpusanitizer.engine.report.ReferenceComparison;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.report.export.JunitExport;
import io.jenkins.plugins.gpusanitizer.engine.report.export.SarifExport;
import io.jenkins.plugins.gpusanitizer.engine.report.export.WarningsNgExport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Where the report goes; the console always gets the short summary. */
final class OutputOptions {
    @Option(names = "--json", paramLabel = "FILE", description = "write the JSON report here.")
    Path json;

    @Option(
            names = "--html",
            paramLabel = "FILE",
            description =
                    "write the HTML report here; its stylesheet goes next to it, named after it (index.html: index.css), "
                            + "never over a file gpu-sanitize did not write.")
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

    /** The report files asked for, by option name. */
    private Map<String, Path> outputs() {
        Map<String, Path> m = new LinkedHashMap<>();
        m.put("--json", json);
        m.put("--html", html);
        m.put("--junit", junit);
        m.put("--sarif", sarif);
        m.put("--warnings-ng", warningsNg);
        m.values().removeIf(java.util.Objects::isNull);
        return m;
    }

    /**
     * Checks the report paths before anything is read or run: an output that names an input (or lies
     * inside the run directory being analysed) or another output is a usage error; one that is a
     * symbolic link or not a regular file is refused with one line (exit 3).
     *
     * @param inputs    the files the command reads (their content is the evidence)
     * @param evidence  a directory whose files must not be written (analyze --run-dir), or null
     * @throws CommandLine.ParameterException for an output that names an input or another output
     * @throws InputException for an output path that must not be written through
     */
    void checkOutputs(CommandLine cl, List<Path> inputs, Path evidence) {
        Map<String, Path> seen = new LinkedHashMap<>();
        for (Map.Entry<String, Path> o : outputs().entrySet()) {
            Path p = o.getValue();
            for (Map.Entry<String, Path> other : seen.entrySet()) {
                if (sameFile(p, other.getValue())) {
                    throw new CommandLine.ParameterException(
                            cl, o.getKey() + " " + p + ": the same file as " + other.getKey());
                }
            }
            seen.put(o.getKey(), p);
            for (Path in : inputs) {
                if (in != null && sameFile(p, in)) {
                    throw new CommandLine.ParameterException(
                            cl, o.getKey() + " " + p + ": is an input of this command; refusing to overwrite it");
                }
            }
            if (evidence != null && inside(p, evidence)) {
                throw new CommandLine.ParameterException(
                        cl,
                        o.getKey() + " " + p + ": is inside the run directory " + evidence
                                + "; refusing to write over its evidence");
            }
            try {
                OutputFile.check(p.toAbsolutePath());
                if (p == html) {
                    HtmlReport.checkStylesheet(p); // before the run, not after it
                }
            } catch (FileSystemException e) {
                throw new InputException(Path.of(e.getFile()), e.getReason());
            }
        }
    }

    static boolean sameFile(Path a, Path b) {
        if (a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize())) {
            return true;
        }
        try {
            return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean inside(Path file, Path dir) {
        Path f = file.toAbsolutePath().normalize();
        if (f.startsWith(dir.toAbsolutePath().normalize())) {
            return true;
        }
        try {
            Path parent = f.getParent();
            return parent != null
                    && Files.isDirectory(parent)
                    && Files.isDirectory(dir)
                    && parent.toRealPath().startsWith(dir.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    void write(Report report, PrintWriter out) {
        try {
            if (json != null) {
                ReportJson.write(report, json);
            }
            if (html != null) {
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
        } catch (FileSystemException e) {
            throw new InputException(Path.of(e.getFile()), e.getReason() == null ? "cannot write" : e.getReason());
        } catch (IOException e) {
            throw new InputException(Path.of("report output"), "cannot write: " + e.getMessage());
        }
        ConsoleSummary.print(report, out, quiet);
    }
}
