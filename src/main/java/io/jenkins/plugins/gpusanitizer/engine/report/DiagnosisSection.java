package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * The report's "Where the fault is" section: the diagnosis' summary, the line the normal run blamed beside the line
 * really at fault, its notes, the failing operators the probe caught and the buffers the accesses ran past. It comes
 * first after the verdict: it is what a reader opens the page for.
 */
final class DiagnosisSection {
    static final int MAX_BUFFERS_SHOWN = 5;

    private DiagnosisSection() {}

    static void append(StringBuilder h, DiagnosisJson d, List<DefectJson> defects) {
        if (d == null) {
            return;
        }
        h.append("<section class=\"gs-diagnosis\"><h2>Where the fault is</h2><p class=\"gs-summary\">")
                .append(Html.esc(d.summary()))
                .append("</p>");
        if (d.reportedAt() != null || d.faultAt() != null) {
            h.append("<table class=\"gs-where\"><tr><th></th><th>line</th><th>code</th></tr>");
            whereRow(h, "reported at (normal run)", d.reportedAt(), "gs-innocent");
            whereRow(
                    h,
                    "really at (" + (d.faultEvidence() == null ? "?" : d.faultEvidence()) + ")",
                    d.faultAt(),
                    "gs-fault");
            h.append("</table>");
        }
        if (!d.notes().isEmpty()) {
            h.append("<ul class=\"gs-notes\">");
            for (String n : d.notes()) {
                h.append("<li>").append(Html.esc(n)).append("</li>");
            }
            h.append("</ul>");
        }
        for (OperatorEvidenceJson o : d.operatorEvidence()) {
            FailingOperator.append(h, o);
        }
        buffers(h, defects);
        h.append("</section>\n");
    }

    /** The buffers the open defects' accesses ran past (issue #42), each one line under the diagnosis. */
    private static void buffers(StringBuilder h, List<DefectJson> defects) {
        defects.stream()
                .filter(x -> !x.suppressed() && x.buffer() != null && x.buffer().summary() != null)
                .limit(MAX_BUFFERS_SHOWN)
                .forEach(x -> h.append("<p class=\"gs-evidence-line gs-buffer\">")
                        .append(x.kernel() == null ? "" : "<code>" + Html.esc(x.kernel()) + "</code>: ")
                        .append(Html.esc(x.buffer().summary()))
                        .append("</p>"));
    }

    private static void whereRow(StringBuilder h, String label, LocationJson l, String cls) {
        if (l == null) {
            return;
        }
        h.append("<tr class=\"")
                .append(cls)
                .append("\"><td>")
                .append(Html.esc(label))
                .append("</td><td><code>")
                .append(Html.esc(l.file()))
                .append(':')
                .append(l.line());
        if (l.function() != null) {
            h.append(" in ").append(Html.esc(l.function()));
        }
        h.append("</code></td><td><code>").append(Html.esc(l.code())).append("</code></td></tr>");
    }
}
