package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportMapper;

/** Analysis to report, and report to exit code. */
final class ReportOutput {
    private ReportOutput() {}

    static Report analyze(AnalysisInput in) {
        return new ReportMapper(in.policy().frameClassifier()).toReport(new Analyzer().analyze(in));
    }

    static int exitCode(Report r) {
        return r.verdict().exitCode();
    }
}
