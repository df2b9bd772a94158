package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.KernelCoverage;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReferenceComparison;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportMapper;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The run's report: the same analysis as {@code analyze --run-dir} with what only the runner saw
 * added, compared with a reference report when asked, its secrets masked ({@link Secrets}), written as
 * report.json and report.html.
 */
final class RunReport {
    private final RunSpec spec;
    private final RunDirectory dir;
    private final ProgressLog progress;
    private final Secrets secrets;

    RunReport(RunSpec spec, RunDirectory dir, ProgressLog progress, Secrets secrets) {
        this.secrets = secrets;
        this.spec = spec;
        this.dir = dir;
        this.progress = progress;
    }

    Report write(RunRecord record, RunReasons reasons, GatePolicy policy) {
        RunDirectory.Judged judged = dir.judge(record, policy, reasons.list());
        Report report = new ReportMapper(policy.frameClassifier())
                .toReport(judged.analysis())
                .withExecution(record.execution())
                .withWork(judged.work());
        report = report.withCoverage(KernelCoverage.forRun(dir.root(), report.execution(), report.sanitizerRuns()));
        if (spec.compareWith() != null) {
            report = compared(report);
        }
        // once, before anything renders it: report.json, report.html and what the caller writes from it (JUnit,
        // SARIF, warnings-ng, the console summary) quote the job's output, which may quote a secret
        report = secrets.mask(report, Report.class);
        try {
            ReportJson.write(report, dir.root().resolve(RunLayout.REPORT_JSON));
            new HtmlReport().writePage(report, dir.root().resolve(RunLayout.REPORT_HTML));
        } catch (IOException e) {
            progress.say("cannot write the report into " + dir.root() + ": " + e.getMessage());
        }
        return report;
    }

    private Report compared(Report report) {
        try {
            return ReferenceComparison.apply(
                    report, ReportJson.read(Path.of(spec.compareWith())), spec.compareWith(), spec.failOnNewOnly());
        } catch (RuntimeException e) {
            // still a report: the comparison is an extra, the verdict stands without it
            progress.say("reference report unusable, not compared: " + e.getMessage());
            return report.withReason(new ReasonJson(
                    "warning",
                    "reference",
                    "reference report " + spec.compareWith() + " unusable, not compared: " + e.getMessage()));
        }
    }
}
