package io.jenkins.plugins.gpusanitizer.engine.report;

/**
 * One failing operator the probe caught, inside "Where the fault is": its line and callers, its tensor arguments and
 * the index values read against their bound, so that the out-of-range value is on the page, not only in the probe's
 * log.
 */
final class FailingOperator {
    private FailingOperator() {}

    /** The failing operator the probe caught: its line, its tensor arguments, the index against its bound. */
    static void append(StringBuilder h, OperatorEvidenceJson o) {
        h.append("<div class=\"gs-evidence\"><p class=\"gs-evidence-line\">")
                .append(Html.esc(o.summary()))
                .append("</p>");
        if (o.site() != null) {
            h.append("<p><code>")
                    .append(Html.esc(o.site().file()))
                    .append(':')
                    .append(o.site().line());
            if (o.site().function() != null) {
                h.append(" in ").append(Html.esc(o.site().function()));
            }
            h.append("</code>");
            if (o.site().code() != null) {
                h.append(": <code>").append(Html.esc(o.site().code())).append("</code>");
            }
            for (LocationJson c : o.stack()) {
                h.append("<br>called from <code>")
                        .append(Html.esc(c.file()))
                        .append(':')
                        .append(c.line())
                        .append(c.function() == null ? "" : " in " + Html.esc(c.function()))
                        .append("</code>");
            }
            h.append("</p>");
        }
        h.append("<table class=\"gs-args\"><tr><th>argument</th><th>shape</th><th>dtype</th><th>device</th>"
                + "<th>values</th></tr>");
        IndexJson ix = o.index();
        for (TensorArgJson a : o.args()) {
            h.append("<tr><td>")
                    .append(Html.esc(a.name()))
                    .append("</td><td><code>")
                    .append(Html.esc(a.shape() == null ? "" : a.shape().toString()))
                    .append("</code></td><td>")
                    .append(Html.esc(a.dtype()))
                    .append("</td><td>")
                    .append(Html.esc(a.device()))
                    .append("</td><td>");
            if (a.index() && ix != null) {
                boolean bad = Boolean.TRUE.equals(ix.outOfRange());
                h.append(bad ? "<span class=\"gs-out-of-range\">" : "<span>")
                        .append(Html.esc(ix.min() == null ? "not readable" : "min " + ix.min() + ", max " + ix.max()))
                        .append("</span>");
                if (ix.size() != null) {
                    h.append(Html.esc("; valid 0.." + (ix.size() - 1) + " (" + ix.of() + " has " + ix.size() + " "
                            + ix.unit() + ")"));
                }
                if (ix.ignoreIndex() != null) {
                    h.append(Html.esc("; ignore_index " + ix.ignoreIndex()));
                }
            }
            h.append("</td></tr>");
        }
        h.append("</table>");
        if (ix != null && ix.statsFrom() != null) {
            h.append("<p class=\"gs-count\">")
                    .append(Html.esc("Index values read " + ix.statsFrom() + " (probe, " + o.phase() + " phase"
                            + (o.rank() == null ? "" : ", rank " + o.rank()) + "). The operator raised "
                            + o.exceptionType() + ": " + o.message()))
                    .append("</p>");
        }
        h.append("</div>");
    }
}
