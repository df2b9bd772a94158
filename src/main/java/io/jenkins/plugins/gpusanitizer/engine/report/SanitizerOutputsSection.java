package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * The report's "Sanitizer outputs" table: for each tool, the files read, the errors it counted beside those it printed,
 * and whether its output was complete; a verdict read from a cut-off output says so here.
 */
final class SanitizerOutputsSection {
    private SanitizerOutputsSection() {}

    static void append(StringBuilder h, List<SanitizerRunJson> runs) {
        if (runs.isEmpty()) {
            return;
        }
        h.append(
                "<section class=\"gs-runs\"><h2>Sanitizer outputs</h2><table><tr><th>tool</th><th>text</th><th>xml</th>"
                        + "<th>errors (summary)</th><th>not printed</th><th>records read</th><th>complete</th></tr>");
        for (SanitizerRunJson s : runs) {
            h.append("<tr><td>")
                    .append(Html.esc(s.tool()))
                    .append("</td><td><code>")
                    .append(Html.esc(s.textSource()))
                    .append("</code></td><td><code>")
                    .append(Html.esc(s.xmlSource()))
                    .append("</code></td><td>")
                    .append(s.errorsTotal() == null ? "unknown" : s.errorsTotal())
                    .append("</td><td>")
                    .append(s.errorsNotPrinted() == null ? "" : s.errorsNotPrinted())
                    .append("</td><td>")
                    .append(s.recordsParsed())
                    .append("</td><td>")
                    .append(s.complete() ? "yes" : "<b>no</b>")
                    .append("</td></tr>");
        }
        h.append("</table></section>\n");
    }
}
