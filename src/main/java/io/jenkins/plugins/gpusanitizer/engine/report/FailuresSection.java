package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * The report's "Job failures by phase" section: each phase's error, its innermost user frame and model line, and the
 * CUDA errors it printed outside any traceback (where an asynchronous error often lands, away from its cause).
 */
final class FailuresSection {
    private FailuresSection() {}

    static void append(StringBuilder h, List<FailureJson> failures) {
        if (failures.isEmpty()) {
            return;
        }
        h.append("<section class=\"gs-failures\"><h2>Job failures by phase</h2><table><tr><th>phase</th><th>error</th>"
                + "<th>innermost user frame</th><th>message</th></tr>");
        for (FailureJson f : failures) {
            h.append("<tr><td>")
                    .append(Html.esc(f.phase()))
                    .append("</td><td>")
                    .append(Html.esc(f.errorClass()))
                    .append(f.asyncWarning() ? " <span class=\"gs-async\">(asynchronous report)</span>" : "")
                    .append("</td><td><code>");
            if (f.userFrame() != null) {
                h.append(Html.esc(f.userFrame().file()))
                        .append(':')
                        .append(f.userFrame().line());
            }
            h.append("</code>");
            if (f.rank() != null) {
                h.append(" <span class=\"gs-rank\">rank ").append(f.rank()).append("</span>");
            }
            if (f.modelLine() != null) {
                h.append("<br>model line <code>")
                        .append(Html.esc(f.modelLine().file()))
                        .append(':')
                        .append(f.modelLine().line())
                        .append("</code>");
            }
            h.append("</td><td>").append(Html.esc(f.message())).append("</td></tr>");
        }
        h.append("</table>");
        for (FailureJson f : failures) {
            if (f.messages() == null || f.messages().isEmpty()) {
                continue;
            }
            h.append("<p>").append(Html.esc(f.phase())).append(": CUDA errors printed outside any traceback</p><ul>");
            for (CudaMessageJson m : f.messages()) {
                h.append("<li>")
                        .append(Html.esc(m.stream()))
                        .append(" line ")
                        .append(m.line())
                        .append(m.count() > 1 ? " (" + m.count() + " times)" : "")
                        .append(m.rank() == null ? "" : " rank " + m.rank())
                        .append(": <code>")
                        .append(Html.esc(m.text()))
                        .append("</code></li>");
            }
            h.append("</ul>");
        }
        h.append("</section>\n");
    }
}
