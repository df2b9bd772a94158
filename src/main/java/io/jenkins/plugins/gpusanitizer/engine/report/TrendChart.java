package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;
import java.util.Locale;

/**
 * Defects per build as an inline SVG bar chart (no script): suppressed defects at the bottom, then
 * the open ones stacked per tool, the bar's outline in the build's verdict colour.
 */
public final class TrendChart {
    private static final int W = 520;
    private static final int H = 160;
    private static final int PAD = 28;

    /** One build: its label, open and suppressed defect counts, verdict, and open defects per tool. */
    public record Point(
            String label, int defects, int suppressed, String verdict, java.util.Map<String, Integer> byTool) {
        public Point(String label, int defects, int suppressed, String verdict) {
            this(label, defects, suppressed, verdict, java.util.Map.of());
        }
    }

    private TrendChart() {}

    public static String svg(List<Point> points) {
        int max = 1;
        for (Point p : points) {
            max = Math.max(max, p.defects() + p.suppressed());
        }
        double slot = (W - PAD - 8) / (double) Math.max(1, points.size());
        double bar = Math.max(2, slot * 0.7);
        StringBuilder s = new StringBuilder();
        s.append("<svg class=\"gs-trend\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ")
                .append(W)
                .append(' ')
                .append(H)
                .append("\" role=\"img\" aria-label=\"GPU Sanitizer defects per build\">");
        s.append(String.format(Locale.ROOT, "<text class=\"gs-label\" x=\"2\" y=\"12\">%d</text>", max));
        for (int i = 0; i < points.size(); i++) {
            Point p = points.get(i);
            double x = PAD + i * slot;
            double hOpen = (H - PAD - 14) * p.defects() / (double) max;
            double hSupp = (H - PAD - 14) * p.suppressed() / (double) max;
            double base = H - PAD;
            String v = p.verdict() == null ? "unknown" : p.verdict().toLowerCase(Locale.ROOT);
            s.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"gs-bar-suppressed\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
                    x,
                    base - hSupp,
                    bar,
                    hSupp));
            double y = base - hSupp;
            for (var e : p.byTool().entrySet()) {
                double h = (H - PAD - 14) * e.getValue() / (double) max;
                y -= h;
                s.append(String.format(
                                Locale.ROOT,
                                "<rect class=\"gs-tool-%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
                                Html.esc(e.getKey()),
                                x,
                                y,
                                bar,
                                h))
                        .append("<title>")
                        .append(Html.esc(p.label() + ": " + e.getValue() + " " + e.getKey()))
                        .append("</title></rect>");
            }
            s.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"gs-bar gs-bar-%s%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
                    Html.esc(v),
                    p.byTool().isEmpty() ? "" : " gs-bar-outline",
                    x,
                    base - hSupp - hOpen,
                    bar,
                    Math.max(hOpen, p.defects() == 0 ? 1 : hOpen)));
            s.append("<title>")
                    .append(Html.esc(p.label()))
                    .append(": ")
                    .append(Html.esc(p.verdict()))
                    .append(", ")
                    .append(p.defects())
                    .append(" defect(s), ")
                    .append(p.suppressed())
                    .append(" suppressed</title></rect>");
            s.append(String.format(
                    Locale.ROOT,
                    "<text class=\"gs-label\" x=\"%.1f\" y=\"%d\">%s</text>",
                    x,
                    H - 10,
                    Html.esc(p.label())));
        }
        s.append("</svg>");
        return s.toString();
    }
}
