package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The report's "Phases" section: a row per run of the job (its command, GPU, how it ended, what the sanitizer counted,
 * links to its raw outputs), then the regression target and the environment. The links go under {@code rawBase}, the
 * URL at which the page that shows them serves the run directory; with none (null), the raw outputs are not listed.
 */
final class PhasesSection {
    private PhasesSection() {}

    static void append(StringBuilder h, ExecutionJson e, List<SanitizerRunJson> runs, String rawBase) {
        h.append(
                "<section class=\"gs-phases\"><h2>Phases</h2><table><tr><th>phase</th><th>command</th><th>GPU</th>"
                        + "<th>status</th><th>exit</th><th>wall</th><th>time to failure</th><th>errors counted / printed</th><th>raw outputs</th></tr>");
        for (PhaseJson p : e.phases()) {
            phaseRow(h, p, runs, rawBase);
        }
        h.append("</table>");
        if (e.regressionTargetSeconds() != null) {
            h.append("<p>")
                    .append(Html.esc(String.format(
                            Locale.ROOT,
                            "Regression target %.1f s (reference failure %.1f s, %s).",
                            e.regressionTargetSeconds(),
                            Objects.requireNonNullElse(e.referenceFailureSeconds(), Double.NaN),
                            e.referenceSource() == null ? "given" : e.referenceSource())))
                    .append("</p>");
        }
        if (e.environment() != null) {
            EnvironmentTable.append(h, e.environment());
        }
        h.append("</section>\n");
    }

    /** Commands up to this many characters are shown whole; longer ones collapsed to their start. */
    static final int COMMAND_SHOWN = 120;

    /**
     * A phase's command line: whole when short; else collapsed ({@code <details>}, no script) to its first {@link
     * #COMMAND_SHOWN} characters and its length, the whole line inside. A compute-sanitizer line with its options
     * and the job's own arguments runs to hundreds of characters: the cell wraps anywhere (report.css) and keeps a
     * readable width instead of squeezing the line into a narrow column.
     */
    static void command(StringBuilder h, String command) {
        int length = command.codePointCount(0, command.length());
        if (length <= COMMAND_SHOWN) {
            h.append("<code>").append(Html.esc(command)).append("</code>");
            return;
        }
        String start = command.substring(0, command.offsetByCodePoints(0, COMMAND_SHOWN));
        h.append("<details><summary><code class=\"gs-command-start\">")
                .append(Html.esc(start))
                .append("\u2026</code> <span class=\"gs-command-length\">(")
                .append(length)
                .append(" characters)</span></summary><code>")
                .append(Html.esc(command))
                .append("</code></details>");
    }

    /** A phase's row: what ran, how it ended, what the tool counted, links to its raw outputs; its note below. */
    private static void phaseRow(StringBuilder h, PhaseJson p, List<SanitizerRunJson> runs, String rawBase) {
        h.append("<tr><td>").append(Html.esc(p.name())).append("</td><td class=\"gs-command\">");
        command(h, String.join(" ", p.command()));
        h.append("</td><td>")
                .append(Html.esc(p.gpu()))
                .append("</td><td class=\"gs-status-")
                .append(Html.esc(p.status()))
                .append("\">")
                .append(Html.esc(p.status()))
                .append("</td><td>")
                .append(p.exitCode() == null ? "" : p.exitCode())
                .append(p.signal() == null ? "" : " (signal " + p.signal() + ")")
                .append("</td><td>")
                .append(String.format(Locale.ROOT, "%.1f s", p.wallSeconds()))
                .append("</td><td>")
                .append(
                        p.timeToFailureSeconds() == null
                                ? ""
                                : String.format(Locale.ROOT, "%.1f s", p.timeToFailureSeconds()))
                .append("</td><td>")
                .append(Html.esc(counted(p, runs)))
                .append("</td><td>");
        for (String f : rawBase == null ? List.<String>of() : p.files()) {
            if (f.startsWith("/") || f.contains("..") || f.contains("\\") || f.contains(":")) {
                continue; // run.json is input too: never link outside the run directory
            }
            h.append("<a href=\"")
                    .append(Html.esc(rawBase + HtmlReport.urlPath(f)))
                    .append("\">")
                    .append(Html.esc(f.substring(f.lastIndexOf('/') + 1)))
                    .append("</a> ");
        }
        h.append("</td></tr>");
        if (p.note() != null) {
            h.append("<tr class=\"gs-note\"><td></td><td colspan=\"8\">")
                    .append(Html.esc(p.note()))
                    .append("</td></tr>");
        }
    }

    private static String counted(PhaseJson p, List<SanitizerRunJson> runs) {
        if (p.tool() == null) {
            return "";
        }
        for (SanitizerRunJson r : runs) {
            if (r.tool().equals(p.tool())) {
                return (r.errorsTotal() == null ? "unknown" : r.errorsTotal().toString()) + " / " + r.recordsParsed();
            }
        }
        return "no output";
    }
}
