package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeEvidence;
import java.util.Locale;

/**
 * The "Live memory by allocation site" table under the memory charts: for each line that allocated, its blocks and MiB
 * after warm-up and at the end (or at the OOM), and its growth; then the allocator snapshot to open.
 */
final class AllocationSiteTable {
    private AllocationSiteTable() {}

    static void append(StringBuilder h, AllocationSitesJson a) {
        String end = "oom".equals(a.endAt()) ? "at the OOM" : "at the end";
        h.append("<h3>")
                .append(Html.esc(String.format(
                        Locale.ROOT,
                        "Live memory by allocation site (PyTorch allocator, %s%s, %d snapshots)",
                        a.rank() == null ? "pid " + a.pid() : "rank " + a.rank(),
                        a.warmupSeconds() == null
                                ? ""
                                : String.format(Locale.ROOT, "; warm-up %.1f s", a.warmupSeconds()),
                        a.samples())))
                .append("</h3><table class=\"gs-sites\"><tr><th>allocated at</th><th>called from</th>"
                        + "<th>blocks after warm-up</th><th>MiB after warm-up</th><th>blocks ")
                .append(Html.esc(end))
                .append("</th><th>MiB ")
                .append(Html.esc(end))
                .append("</th><th>growth MiB</th></tr>");
        for (AllocationSiteJson s : a.sites()) {
            if (ProbeEvidence.NO_PYTHON_FRAME.equals(s.site().file())) {
                h.append("<tr><td>no Python frame recorded (a C++/library allocation)");
            } else {
                h.append("<tr><td><code>")
                        .append(Html.esc(s.site().file()))
                        .append(':')
                        .append(s.site().line())
                        .append(
                                s.site().function() == null
                                        ? ""
                                        : " in " + Html.esc(s.site().function()))
                        .append("</code>");
            }
            if (s.site().code() != null) {
                h.append("<br><code>").append(Html.esc(s.site().code())).append("</code>");
            }
            h.append("</td><td>");
            for (LocationJson c : s.stack()) {
                h.append("<code>")
                        .append(Html.esc(c.file()))
                        .append(':')
                        .append(c.line())
                        .append("</code> ");
            }
            h.append(String.format(
                    Locale.ROOT,
                    "</td><td class=\"gs-num\">%,d</td><td class=\"gs-num\">%.1f</td><td class=\"gs-num\">%,d</td>"
                            + "<td class=\"gs-num\">%.1f</td><td class=\"gs-num%s\">%+.1f</td></tr>",
                    s.blocksAtWarmup(),
                    s.bytesAtWarmup() / 1048576.0,
                    s.blocksAtEnd(),
                    s.bytesAtEnd() / 1048576.0,
                    s.growthBytes() > (1L << 20) ? " gs-grew" : "",
                    s.growthBytes() / 1048576.0));
        }
        h.append("</table>");
        if (a.oom() != null && a.oom().snapshotFile() != null) {
            h.append("<p>")
                    .append(Html.esc("Allocator snapshot at the out-of-memory: "
                            + a.oom().snapshotFile() + " (open it at pytorch.org/memory_viz)."))
                    .append("</p>");
        }
    }
}
