package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.util.ArrayList;
import java.util.List;

/**
 * What a pull-request check says about a report, independent of the Checks API that publishes it:
 * a stable name, a conclusion from the verdict, a capped Markdown summary, and annotations at the
 * user frames of the new defects (all open defects when there is no reference). Annotation paths are
 * relative to the run's working directory (the workspace, normally the checkout root), which GitHub
 * matches against the repository; a defect with no frame in the workspace is named in the summary instead.
 *
 * @param name       stable per step id, e.g. {@code GPU Sanitizer (memcheck)}
 * @param conclusion {@code success}, {@code failure} or {@code neutral} (UNSTABLE)
 */
public record CheckRun(String name, String conclusion, String title, String summary, List<Annotation> annotations) {
    /** GitHub caps a check's summary at 65,535 characters; stay well below. */
    public static final int MAX_SUMMARY = 60_000;
    /** GitHub accepts 50 annotations per request; more are dropped with a line in the summary. */
    public static final int MAX_ANNOTATIONS = 50;
    /** Defects outside the workspace named in the summary, at most. */
    static final int MAX_OUTSIDE_LINES = 10;

    /** level: {@code failure} for errors, {@code warning} for warnings. */
    public record Annotation(String path, int line, String level, String title, String message) {}

    public static CheckRun of(Report r, String name) {
        String conclusion =
                switch (r.verdict()) {
                    case PASS -> "success";
                    case UNSTABLE -> "neutral";
                    case FAIL, ERROR -> "failure";
                };
        List<DefectJson> open =
                r.defects().stream().filter(d -> !d.suppressed()).toList();
        List<DefectJson> annotate = r.reference() == null
                ? open
                : open.stream()
                        .filter(d -> ReferenceComparison.NEW.equals(d.status()))
                        .toList();
        String workspace = r.execution() == null ? null : r.execution().workDirectory();
        Annotated annotated = annotated(annotate, workspace);
        String title = r.verdict() + ": " + open.size() + " defect(s)"
                + (r.reference() == null
                        ? ""
                        : ", " + annotate.size() + " new, " + r.fixed().size() + " fixed");
        return new CheckRun(name, conclusion, title, summary(r, annotated, workspace), annotated.annotations());
    }

    /**
     * The annotations (at most {@link #MAX_ANNOTATIONS}), the defects that have none but a location (named in
     * the summary instead), and how many have none.
     */
    private record Annotated(List<Annotation> annotations, List<String> outside, int unannotated) {}

    private static Annotated annotated(List<DefectJson> defects, String workspace) {
        List<Annotation> annotations = new ArrayList<>();
        List<String> outside = new ArrayList<>();
        int unannotated = 0;
        for (DefectJson d : defects) {
            Placed at = annotations.size() == MAX_ANNOTATIONS ? null : place(d, workspace);
            if (at != null) {
                annotations.add(annotation(d, at, workspace));
                continue;
            }
            unannotated++;
            if (annotations.size() < MAX_ANNOTATIONS && isAt(d.hostLocation())) {
                outside.add(title(d) + " at " + d.hostLocation().file() + ":"
                        + d.hostLocation().line());
            }
        }
        return new Annotated(annotations, outside, unannotated);
    }

    private static Annotation annotation(DefectJson d, Placed at, String workspace) {
        String where = at.location() == d.hostLocation()
                ? ""
                : "The fault is at " + d.hostLocation().file() + ":"
                        + d.hostLocation().line()
                        + ", outside the workspace; this is the nearest frame of the job's own code. ";
        return new Annotation(
                at.path(),
                at.location().line(),
                "error".equals(d.severity()) ? "failure" : "warning",
                title(d),
                where
                        + d.message() + " (" + d.records() + " records)"
                        + (d.deviceLocation() == null
                                ? ""
                                : "; device line "
                                        + shown(d.deviceLocation().file(), workspace) + ":"
                                        + d.deviceLocation().line())
                        + (d.buffer() == null || d.buffer().summary() == null
                                ? ""
                                : ". " + d.buffer().summary()));
    }

    /** The check's text: the verdict, the diagnosis, the deciding reasons, the defects not annotated. */
    private static String summary(Report r, Annotated a, String workspace) {
        StringBuilder s = new StringBuilder();
        s.append("**").append(r.verdict()).append("**");
        if (r.errorsTotal() != null) {
            s.append(" — ").append(r.errorsTotal()).append(" sanitizer error(s) counted");
        }
        s.append("\n\n");
        if (r.diagnosis() != null && r.diagnosis().summary() != null) {
            s.append(md(r.diagnosis().summary())).append("\n\n");
        }
        for (ReasonJson reason : r.reasons()) {
            if (!reason.level().equals("info")) {
                s.append("- ")
                        .append(reason.level())
                        .append(": ")
                        .append(md(reason.message()))
                        .append('\n');
            }
        }
        if (!a.outside().isEmpty()) {
            s.append("\n")
                    .append(
                            workspace == null
                                    ? "Not annotated (the run does not say its working directory):\n"
                                    : "Not annotated, no frame in the workspace:\n");
            a.outside().stream()
                    .limit(MAX_OUTSIDE_LINES)
                    .forEach(line -> s.append("- ").append(md(line)).append('\n'));
        }
        if (a.unannotated() > Math.min(a.outside().size(), MAX_OUTSIDE_LINES)) {
            s.append("\n")
                    .append(a.unannotated() - Math.min(a.outside().size(), MAX_OUTSIDE_LINES))
                    .append(" more defect(s) without annotation; see the report.\n");
        }
        return s.length() > MAX_SUMMARY
                ? s.substring(0, MAX_SUMMARY) + "\n\n(truncated; see the report)"
                : s.toString();
    }

    /** Where a defect is annotated: the location and its path relative to the workspace. */
    private record Placed(LocationJson location, String path) {}

    /**
     * The host location when it lies in the workspace, else the first user frame of the host stack
     * that does; null when none does (a fault in site-packages, /usr, generated code, or a run that does
     * not say its working directory): no annotation with a path GitHub cannot match.
     */
    private static Placed place(DefectJson d, String workspace) {
        if (!isAt(d.hostLocation())) {
            return null;
        }
        String path = relativize(workspace, d.hostLocation().file());
        if (path != null) {
            return new Placed(d.hostLocation(), path);
        }
        if (d.hostStack() != null) {
            for (FrameJson f : d.hostStack()) {
                String framePath = "user".equals(f.role()) && f.line() != null && f.line() > 0
                        ? relativize(workspace, f.file())
                        : null;
                if (framePath != null) {
                    return new Placed(new LocationJson(f.file(), f.line(), f.function(), null), framePath);
                }
            }
        }
        return null;
    }

    private static boolean isAt(LocationJson l) {
        return l != null && l.file() != null && l.line() > 0;
    }

    private static String title(DefectJson d) {
        return d.tool() + ": " + d.kind() + (d.kernel() == null ? "" : " in " + d.kernel());
    }

    /** A file as the check shows it: relative to the workspace when inside it, else as the report has it. */
    private static String shown(String file, String workspace) {
        String relative = relativize(workspace, file);
        return relative == null ? file : relative;
    }

    /**
     * {@code file} relative to {@code workspace}, with '/' separators, as the Checks API's annotation path
     * ("the relative path of the file to annotate", which GitHub matches against the repository); null
     * when it does not lie there ({@link WorkPaths#relative}: outside, in an installed package, relative).
     */
    static String relativize(String workspace, String file) {
        return WorkPaths.of(workspace).relative(file);
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
