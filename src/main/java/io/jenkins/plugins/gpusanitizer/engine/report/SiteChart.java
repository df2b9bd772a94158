package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;
import java.util.Locale;

/**
 * An inline SVG chart of the top allocation sites' live memory over time (the probe's allocator
 * snapshots), drawn beside the nvidia-smi curve on the same time axis.
 */
final class SiteChart {
    private static final int W = 640;
    private static final int H = 240;
    private static final int PAD = 44;
    private static final int LEGEND = 16;

    private SiteChart() {}

    /** The largest time in the series: the chart's time axis must reach it. */
    static double maxSeconds(AllocationSitesJson sites) {
        double m = 0;
        for (SiteSeriesJson s : sites.series()) {
            for (double[] p : s.points()) {
                m = Math.max(m, p[0]);
            }
        }
        return m;
    }

    static String svg(AllocationSitesJson sites, double seconds) {
        List<SiteSeriesJson> series = sites.series();
        double maxT = Math.max(1, Math.max(seconds, maxSeconds(sites)));
        double maxY = 1;
        for (SiteSeriesJson s : series) {
            for (double[] p : s.points()) {
                maxY = Math.max(maxY, p[1]);
            }
        }
        maxY *= 1.1;
        int h = H + LEGEND * Math.max(0, series.size() - 1);
        int base = H - PAD;
        StringBuilder s = new StringBuilder();
        s.append("<svg class=\"gs-chart gs-site-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ")
                .append(W)
                .append(' ')
                .append(h)
                .append("\" role=\"img\" aria-label=\"live GPU memory by allocation site over time\">");
        s.append(String.format(
                Locale.ROOT,
                "<line class=\"gs-axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                        + "<line class=\"gs-axis\" x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\"/>",
                PAD,
                base,
                W - 10,
                base,
                PAD,
                PAD,
                base));
        s.append(String.format(Locale.ROOT, "<text class=\"gs-label\" x=\"2\" y=\"20\">%.0f MiB</text>", maxY));
        s.append(String.format(
                Locale.ROOT, "<text class=\"gs-label\" x=\"%d\" y=\"%d\">%.0f s</text>", W - 60, base + 16, maxT));
        s.append(String.format(
                Locale.ROOT,
                "<text class=\"gs-label\" x=\"%d\" y=\"20\">live MiB by allocation site (PyTorch allocator)</text>",
                PAD + 8));
        int i = 0;
        for (SiteSeriesJson c : series) {
            double peak = 0;
            s.append("<polyline class=\"gs-series gs-site-").append(i).append("\" points=\"");
            for (double[] p : c.points()) {
                double x = PAD + (W - PAD - 10) * p[0] / maxT;
                double y = base - (base - 10) * p[1] / maxY;
                peak = Math.max(peak, p[1]);
                s.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            s.append("\"><title>").append(Html.esc(c.site())).append("</title></polyline>");
            s.append(String.format(
                            Locale.ROOT,
                            "<text class=\"gs-label gs-site-legend-%d\" x=\"%d\" y=\"%d\">",
                            i,
                            PAD + 8,
                            base + 32 + LEGEND * i))
                    .append(Html.esc(c.site()))
                    .append(String.format(Locale.ROOT, " (peak %.1f MiB)</text>", peak));
            i++;
        }
        s.append("</svg>");
        return s.toString();
    }
}
