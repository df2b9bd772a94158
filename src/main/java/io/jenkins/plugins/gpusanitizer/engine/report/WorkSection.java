package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;
import java.util.Locale;

/**
 * The report's "What each run did" table (issue #40): side by side, each run's GPU work as the probe counted it and
 * what it changed in its own copy of the working directory, with a link to the list of those changes. A reader sees
 * at once whether the three runs did the same work. The link goes under {@code rawBase}; with none (null), no link.
 */
final class WorkSection {
    private WorkSection() {}

    static void append(StringBuilder h, List<Report.WorkJson> work, String rawBase) {
        if (work == null || work.isEmpty()) {
            return;
        }
        h.append("<section class=\"gs-work\"><h2>What each run did</h2><table><tr><th>run</th>"
                + "<th>processes with a CUDA context</th><th>optimizer steps</th><th>allocations</th>"
                + "<th>its workspace</th><th>changed there</th></tr>");
        for (Report.WorkJson w : work) {
            h.append("<tr><td>").append(Html.esc(w.run())).append("</td>");
            if (w.counted()) {
                h.append("<td>")
                        .append(w.cudaProcesses())
                        .append(" of ")
                        .append(w.processes())
                        .append("</td><td>")
                        .append(w.optimizerSteps())
                        .append("</td><td>")
                        .append(
                                w.allocations() == null
                                        ? "not counted"
                                        : w.allocations().toString())
                        .append("</td>");
            } else {
                h.append("<td colspan=\"3\">not counted (no process imported torch, or the probe was off)</td>");
            }
            h.append("<td><code>")
                    .append(Html.esc(w.workspace() == null ? "the working directory itself" : w.workspace()))
                    .append("</code></td><td>");
            if (w.workspaceChanges() != null) {
                h.append(Html.esc(String.format(
                        Locale.ROOT,
                        "%d path(s), %.1f MiB written",
                        w.workspaceChanges(),
                        w.bytesWritten() == null ? 0.0 : w.bytesWritten() / (1024.0 * 1024.0))));
            }
            if (rawBase != null
                    && w.manifest() != null
                    && !w.manifest().startsWith("/")
                    && !w.manifest().contains("..")) {
                h.append(" <a href=\"")
                        .append(Html.esc(rawBase + HtmlReport.urlPath(w.manifest())))
                        .append("\">list</a>");
            }
            h.append("</td></tr>");
        }
        h.append("</table></section>\n");
    }
}
