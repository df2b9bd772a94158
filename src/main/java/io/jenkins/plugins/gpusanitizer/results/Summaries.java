package io.jenkins.plugins.gpusanitizer.results;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import io.jenkins.plugins.gpusanitizer.engine.report.DiagnosisJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Evidence;
import io.jenkins.plugins.gpusanitizer.engine.report.LocationJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/** Report to the small summary the build keeps in build.xml. */
public final class Summaries {
    private Summaries() {}

    public static AgentSummary of(Report report, String runDirectory) {
        return of(report, runDirectory, false);
    }

    public static AgentSummary of(Report report, String runDirectory, boolean aborted) {
        int open = (int)
                report.defects().stream().filter(defect -> !defect.suppressed()).count();
        String first = report.reasons().stream()
                .filter(reason ->
                        !reason.level().equals("info") && !reason.level().equals("warning"))
                .map(ReasonJson::message)
                .findFirst()
                .orElse(null);
        DiagnosisJson diagnosis = report.diagnosis();
        WorkPaths paths = WorkPaths.of(
                report.execution() == null ? null : report.execution().workDirectory());
        return AgentSummary.builder()
                .verdict(report.verdict())
                .defects(open)
                .suppressed(report.defects().size() - open)
                .errorsTotal(report.errorsTotal())
                .firstReason(first)
                .diagnosis(diagnosis == null ? null : diagnosis.summary())
                .reportedAt(where(diagnosis == null ? null : diagnosis.reportedAt(), paths))
                .faultAt(where(diagnosis == null ? null : diagnosis.faultAt(), paths))
                .runDirectory(runDirectory)
                .defectsByTool(byTool(report))
                .aborted(aborted)
                .evidence(new ArrayList<>(Evidence.lines(report)))
                .build();
    }

    /**
     * The same summary with every text that came from the job's output passed through {@code mask}
     * (they reach build.xml and the build page).
     */
    public static AgentSummary masked(AgentSummary summary, UnaryOperator<String> mask) {
        return summary.copy()
                .firstReason(mask.apply(summary.firstReason()))
                .diagnosis(mask.apply(summary.diagnosis()))
                .reportedAt(mask.apply(summary.reportedAt()))
                .faultAt(mask.apply(summary.faultAt()))
                .evidence(new ArrayList<>(summary.evidence().stream().map(mask).toList()))
                .build();
    }

    /** Open defects per tool, for the job page's trend. */
    static Map<String, Integer> byTool(Report report) {
        Map<String, Integer> byTool = new TreeMap<>();
        report.defects().stream()
                .filter(defect -> !defect.suppressed())
                .forEach(defect -> byTool.merge(defect.tool(), 1, Integer::sum));
        return byTool;
    }

    private static String where(LocationJson location, WorkPaths paths) {
        if (location == null) {
            return null;
        }
        return paths.at(SourceLocation.of(location.file(), location.line(), location.function()));
    }
}
