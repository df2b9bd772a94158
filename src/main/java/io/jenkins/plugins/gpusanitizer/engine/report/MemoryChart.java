package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;
import java.util.Locale;

/** An inline SVG line chart of memory curves: seconds against MiB, one polyline per series. */
final class MemoryChart {
    private static final int W = 640;
    private static final int H = 240;
    private static final int PAD = 44;

    private MemoryChart() {}

    /** @param target the regression target in seconds, marked with a dashed line; null for none */
    static String svg(List<MemoryJson> curves, Double target) {
        return svg(curves, target, 1);
    }

    /** @param minSeconds the time axis spans at least this (to share it with the allocation-site chart) */
    static String svg(List<MemoryJson> curves, Double target, double minSeconds) {
        double maxT = Math.max(minSeconds, target == null ? 1 : target);
        double maxY = 1;
        for (MemoryJson c : curves) {
            for (double[] p : c.points()) {
                maxT = Math.max(maxT, p[0]);
                maxY = Math.max(maxY, p[1]);
            }
        }
        maxY *= 1.1;
        StringBuilder s = new StringBuilder();
        s.append("<svg class=\"gs-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ")
                .append(W)
                .append(' ')
                .append(H)
                .append("\" role=\"img\" aria-label=\"GPU memory used over time\">");
        axes(s, maxT, maxY);
        if (target != null) {
            target(s, target, maxT);
        }
        for (MemoryJson c : curves) {
            // the judged window (after warm-up), shaded behind the curves
            if (c.judgedFromSeconds() != null && c.judgedToSeconds() != null) {
                judged(s, c, maxT);
            }
        }
        int series = 0;
        for (MemoryJson c : curves) {
            series(s, c, series++, maxT, maxY);
        }
        s.append("</svg>");
        return s.toString();
    }

    private static void axes(StringBuilder s, double maxT, double maxY) {
        s.append("<line class=\"gs-axis\" x1=\"")
                .append(PAD)
                .append("\" y1=\"")
                .append(H - PAD)
                .append("\" x2=\"")
                .append(W - 10)
                .append("\" y2=\"")
                .append(H - PAD)
                .append("\"/>");
        s.append("<line class=\"gs-axis\" x1=\"")
                .append(PAD)
                .append("\" y1=\"10\" x2=\"")
                .append(PAD)
                .append("\" y2=\"")
                .append(H - PAD)
                .append("\"/>");
        s.append(String.format(Locale.ROOT, "<text class=\"gs-label\" x=\"%d\" y=\"%d\">%.0f MiB</text>", 2, 20, maxY));
        s.append(String.format(
                Locale.ROOT, "<text class=\"gs-label\" x=\"%d\" y=\"%d\">%.0f s</text>", W - 60, H - PAD + 16, maxT));
    }

    /** The regression target: a dashed line at its time. */
    private static void target(StringBuilder s, double target, double maxT) {
        double x = PAD + (W - PAD - 10) * target / maxT;
        s.append(String.format(
                Locale.ROOT, "<line class=\"gs-target\" x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"%d\"/>", x, x, H - PAD));
        s.append(String.format(
                Locale.ROOT,
                "<text class=\"gs-label\" x=\"%.1f\" y=\"20\">target %.0f s</text>",
                Math.max(PAD, x - 70),
                target));
    }

    private static void judged(StringBuilder s, MemoryJson c, double maxT) {
        double x0 = PAD + (W - PAD - 10) * c.judgedFromSeconds() / maxT;
        double x1 = PAD + (W - PAD - 10) * c.judgedToSeconds() / maxT;
        s.append(String.format(
                        Locale.ROOT,
                        "<rect class=\"gs-judged\" x=\"%.1f\" y=\"10\" width=\"%.1f\" height=\"%d\">",
                        x0,
                        Math.max(0, x1 - x0),
                        H - PAD - 10))
                .append("<title>")
                .append(Html.esc(c.label()))
                .append(String.format(
                        Locale.ROOT,
                        ": judged %.1f–%.1f s (before: warm-up)</title></rect>",
                        c.judgedFromSeconds(),
                        c.judgedToSeconds()));
    }

    /** One curve's polyline and its legend. */
    private static void series(StringBuilder s, MemoryJson c, int series, double maxT, double maxY) {
        s.append("<polyline class=\"gs-series gs-series-").append(series).append("\" points=\"");
        for (double[] p : c.points()) {
            double x = PAD + (W - PAD - 10) * p[0] / maxT;
            double y = (H - PAD) - (H - PAD - 10) * p[1] / maxY;
            s.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        s.append("\"><title>").append(Html.esc(c.label())).append("</title></polyline>");
        s.append(String.format(
                        Locale.ROOT,
                        "<text class=\"gs-label gs-legend-%d\" x=\"%d\" y=\"%d\">",
                        series,
                        PAD + 8 + 160 * series,
                        H - 8))
                .append(Html.esc(c.label()))
                .append(String.format(Locale.ROOT, " (peak %.0f MiB)</text>", c.peakMiB()));
    }
}
