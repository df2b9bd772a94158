package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * The report's "GPU memory" section: each curve's description and basis, the allocation sites' summary, the charts on
 * one time axis and the table of live memory by allocation site. The sites are the curve's, else the probe's, so an
 * out-of-memory with no curve still shows what filled the card.
 */
final class MemorySection {
    private MemorySection() {}

    static void append(StringBuilder h, List<MemoryJson> curves, Double target, AllocationSitesJson unattached) {
        AllocationSitesJson sites = unattached;
        for (MemoryJson m : curves) {
            if (m.allocationSites() != null) {
                sites = m.allocationSites();
            }
        }
        if (curves.isEmpty() && sites == null) {
            return;
        }
        h.append("<section class=\"gs-memory\"><h2>GPU memory</h2><ul>");
        for (MemoryJson m : curves) {
            h.append("<li>")
                    .append(Html.esc(m.label()))
                    .append(" (GPU ")
                    .append(Html.esc(m.gpu()))
                    .append("): ")
                    .append(Html.esc(m.description()))
                    .append("</li>");
            if (m.basisNote() != null) {
                // which curve was judged: the job's own processes, the card's total, or the probe's allocator
                h.append("<li class=\"gs-basis\">Curve: ")
                        .append(Html.esc(m.basisNote()))
                        .append("</li>");
            }
        }
        if (sites != null) {
            if (sites.oom() != null) {
                h.append("<li class=\"gs-grew\">")
                        .append(Html.esc(sites.oom().summary()))
                        .append("</li>");
            }
            h.append("<li").append(sites.growing() ? " class=\"gs-grew\"" : "").append('>');
            h.append(Html.esc(sites.summary())).append("</li>");
        }
        h.append("</ul><div class=\"gs-charts\">");
        double seconds = sites == null ? 1 : SiteChart.maxSeconds(sites);
        if (!curves.isEmpty()) {
            h.append(MemoryChart.svg(curves, target, seconds));
        }
        if (sites != null && !sites.series().isEmpty()) {
            double t = Math.max(seconds, target == null ? 0 : target);
            for (MemoryJson m : curves) {
                for (double[] p : m.points()) {
                    t = Math.max(t, p[0]);
                }
            }
            h.append(SiteChart.svg(sites, t));
        }
        h.append("</div>");
        if (sites != null) {
            AllocationSiteTable.append(h, sites);
        }
        h.append("</section>\n");
    }
}
