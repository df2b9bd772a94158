package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.ArrayList;
import java.util.List;

/**
 * What a pull-request check says about a report, independent of the Checks API that publishes it:
 * a stable name, a conclusion from the verdict, a capped Markdown summary, and annotations at the
 * user frames of the new defects (all open defects when there is no reference).
 *
 * @param name       stable per step id, e.g. {@code GPU Sanitizer (memcheck)}
 * @param conclusion {@code success}, {@code failure} or {@code neutral} (UNSTABLE)
 */
public record CheckRun(String name, String conclusion, String title, String summary, List<Annotation> annotations) {
    /** GitHub caps a check's summary at 65,535 characters; stay well below. */
    public static final int MAX_SUMMARY = 60_000;
    /** GitHub accepts 50 annotations per request; more are dropped with a line in the summary. */
    public static final int MAX_ANNOTATIONS = 50;

    /** level: {@code failure} for errors, {@code warning} for warnings. */
    public record Annotation(String path, int line, String level, String title, String message) {}

    public static CheckRun of(Report r, String name) {
        String conclusion =
                switch (r.verdict()) {
                    case "PASS" -> "success";
                    case "UNSTABLE" -> "neutral";
                    default -> "failure";
                };
        List<Report.DefectJson> open =
                r.defects().stream().filter(d -> !d.suppressed()).toList();
        List<Report.DefectJson> annotate = r.reference() == null
                ? open
                : open.stream()
                        .filter(d -> ReferenceComparison.NEW.equals(d.status()))
                        .toList();
        List<Annotation> annotations = new ArrayList<>();
        for (Report.DefectJson d : annotate) {
            if (annotations.size() == MAX_ANNOTATIONS
                    || d.hostLocation() == null
                    || d.hostLocation().line() <= 0) {
                continue;
            }
            annotations.add(new Annotation(
                    d.hostLocation().file(),
                    d.hostLocation().line(),
                    "error".equals(d.severity()) ? "failure" : "warning",
                    d.tool() + ": " + d.kind() + (d.kernel() == null ? "" : " in " + d.kernel()),
                    d.message() + " (" + d.records() + " records)"
                            + (d.deviceLocation() == null
                                    ? ""
                                    : "; device line " + d.deviceLocation().file() + ":"
                                            + d.deviceLocation().line())));
        }
        StringBuilder s = new StringBuilder();
        s.append("**").append(r.verdict()).append("**");
        if (r.errorsTotal() != null) {
            s.append(" — ").append(r.errorsTotal()).append(" sanitizer error(s) counted");
        }
        s.append("\n\n");
        if (r.diagnosis() != null && r.diagnosis().summary() != null) {
            s.append(md(r.diagnosis().summary())).append("\n\n");
        }
        for (Report.ReasonJson reason : r.reasons()) {
            if (!reason.level().equals("info")) {
                s.append("- ")
                        .append(reason.level())
                        .append(": ")
                        .append(md(reason.message()))
                        .append('\n');
            }
        }
        if (annotate.size() > annotations.size()) {
            s.append("\n")
                    .append(annotate.size() - annotations.size())
                    .append(" more defect(s) without annotation; see the report.\n");
        }
        String summary = s.length() > MAX_SUMMARY
                ? s.substring(0, MAX_SUMMARY) + "\n\n(truncated; see the report)"
                : s.toString();
        String title = r.verdict() + ": " + open.size() + " defect(s)"
                + (r.reference() == null
                        ? ""
                        : ", " + annotate.size() + " new, " + r.fixed().size() + " fixed");
        return new CheckRun(name, conclusion, title, summary, annotations);
    }

    /** Tool strings go into Markdown: neutralise what would render as markup or HTML. */
    static String md(String s) {
        return s.replace("\\", "\\\\")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("`", "\\`")
                .replace("*", "\\*")
                .replace("_", "\\_")
                .replace("[", "\\[")
                .replace("]", "\\]");
    }
}
