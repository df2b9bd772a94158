package io.jenkins.plugins.gpusanitizer;

import io.jenkins.plugins.gpusanitizer.engine.report.Evidence;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;

/** Report to the small summary the build keeps in build.xml. */
final class Summaries {
    private Summaries() {}

    static AgentSummary of(Report r, String runDirectory) {
        return of(r, runDirectory, false);
    }

    static AgentSummary of(Report r, String runDirectory, boolean aborted) {
        int open = (int) r.defects().stream().filter(d -> !d.suppressed()).count();
        String first = r.reasons().stream()
                .filter(x -> !x.level().equals("info") && !x.level().equals("warning"))
                .map(Report.ReasonJson::message)
                .findFirst()
                .orElse(null);
        return new AgentSummary(
                r.verdict(),
                open,
                r.defects().size() - open,
                r.errorsTotal(),
                first,
                r.diagnosis() == null ? null : r.diagnosis().summary(),
                where(r.diagnosis() == null ? null : r.diagnosis().reportedAt()),
                where(r.diagnosis() == null ? null : r.diagnosis().faultAt()),
                runDirectory,
                byTool(r),
                aborted,
                new java.util.ArrayList<>(Evidence.lines(r)));
    }

    /** The same summary with every text that came from the job's output masked (they reach build.xml and the build page). */
    static AgentSummary masked(AgentSummary s, SecretMasker m) {
        if (m.isEmpty()) {
            return s;
        }
        return new AgentSummary(
                s.verdict(),
                s.defects(),
                s.suppressed(),
                s.errorsTotal(),
                m.mask(s.firstReason()),
                m.mask(s.diagnosis()),
                m.mask(s.reportedAt()),
                m.mask(s.faultAt()),
                s.runDirectory(),
                s.defectsByTool(),
                s.aborted(),
                new java.util.ArrayList<>(s.evidence().stream().map(m::mask).toList()));
    }

    /** Open defects per tool, for the job page's trend. */
    static java.util.Map<String, Integer> byTool(Report r) {
        java.util.Map<String, Integer> m = new java.util.TreeMap<>();
        r.defects().stream().filter(d -> !d.suppressed()).forEach(d -> m.merge(d.tool(), 1, Integer::sum));
        return m;
    }

    private static String where(Report.LocationJson l) {
        if (l == null) {
            return null;
        }
        String file = l.file();
        int slash = file.lastIndexOf('/');
        return (slash < 0 ? file : file.substring(slash + 1)) + ":" + l.line()
                + (l.function() == null ? "" : " (" + l.function() + ")");
    }
}
