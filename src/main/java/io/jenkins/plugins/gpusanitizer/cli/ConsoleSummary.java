package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.Bidi;
import io.jenkins.plugins.gpusanitizer.engine.report.Evidence;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.io.PrintWriter;

/** The few lines a console (or a Jenkins build log) gets: never the tool's flood. */
public final class ConsoleSummary {
    static final int MAX_REASONS = 12;

    private ConsoleSummary() {}

    public static void print(Report r, PrintWriter out, boolean quiet) {
        long open = r.defects().stream().filter(d -> !d.suppressed()).count();
        long suppressed = r.defects().size() - open;
        out.println("gpu-sanitize: " + r.verdict() + " (" + open + " defect(s), " + suppressed + " suppressed"
                + (r.errorsTotal() == null ? "" : ", " + r.errorsTotal() + " sanitizer error(s) counted") + ")");
        if (quiet) {
            out.flush();
            return;
        }
        int shown = 0;
        for (ReasonJson reason : r.reasons()) {
            if ("info".equals(reason.level()) && r.verdict() != Verdict.PASS) {
                continue;
            }
            if (shown++ == MAX_REASONS) {
                out.println("  ... see the report for the rest");
                break;
            }
            out.println("  " + reason.level() + ": " + oneLine(reason.message()));
        }
        String summary = "";
        if (r.diagnosis() != null
                && (r.diagnosis().reportedAt() != null || r.diagnosis().faultAt() != null)) {
            summary = r.diagnosis().summary();
            out.println("  " + oneLine(summary));
        }
        for (String e : Evidence.lines(r)) {
            String text = e.startsWith("failing operator: ") ? e.substring("failing operator: ".length()) : e;
            if (!summary.contains(text)) {
                out.println("  " + oneLine(e));
            }
        }
        if (r.coverage() != null) {
            for (var c : r.coverage()) {
                out.println("  coverage: " + oneLine(c.summary()));
            }
        }
        out.flush();
    }

    /** One line of tool-derived text: no line breaks, bidi controls shown as code points. */
    static String oneLine(String s) {
        String one = Bidi.neutralise(s).replaceAll("[\\r\\n]+", " ");
        return one.length() > 400 ? one.substring(0, 400) + "..." : one;
    }
}
