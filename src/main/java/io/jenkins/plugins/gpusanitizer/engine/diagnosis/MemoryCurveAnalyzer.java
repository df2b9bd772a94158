package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import io.jenkins.plugins.gpusanitizer.engine.parse.MemorySamples;
import java.util.ArrayList;
import java.util.List;

/**
 * Judges a memory curve. The job's span starts at the first sample above the idle baseline and ends
 * before the curve falls back to it. The curve is stable when it reaches its peak (within a
 * tolerance) early enough that it then stays flat for a good part of the run; otherwise it is
 * growing, and the rate is the least-squares slope over the second half of the climb, which skips
 * start-up (CUDA context, first allocations).
 */
public final class MemoryCurveAnalyzer {
    /** Share of the job's span the curve must stay at its peak to count as stable. */
    static final double STABLE_SHARE = 0.3;
    static final double MIN_STABLE_SECONDS = 2.0;
    static final int MAX_POINTS = 400;

    public MemoryCurve analyze(MemorySamples s, String source, String label) {
        int n = s.size();
        List<double[]> points = downsample(s);
        if (n < 4) {
            return new MemoryCurve(source, label, s.gpu(), MemoryCurve.Shape.UNKNOWN, s.maxUsed(), n == 0 ? 0 : s.used(0),
                    0, 0, n == 0 ? 0 : s.time(n - 1) - s.time(0), n, points);
        }
        double baseline = s.used(0);
        double idleTol = Math.max(2, baseline * 0.01);
        int start = 0;
        while (start < n && s.used(start) <= baseline + idleTol) {
            start++;
        }
        int end = n - 1;
        while (end > start && s.used(end) <= baseline + idleTol) {
            end--;
        }
        if (start >= end) {
            return new MemoryCurve(source, label, s.gpu(), MemoryCurve.Shape.UNKNOWN, s.maxUsed(), baseline, 0, 0, 0, n, points);
        }
        double peak = 0;
        for (int i = start; i <= end; i++) {
            peak = Math.max(peak, s.used(i));
        }
        double tol = Math.max(32, 0.02 * (peak - baseline));
        int settle = start;
        while (settle <= end && s.used(settle) < peak - tol) {
            settle++;
        }
        double span = s.time(end) - s.time(start);
        double flat = s.time(end) - s.time(settle);
        if (span <= 0) {
            return new MemoryCurve(source, label, s.gpu(), MemoryCurve.Shape.UNKNOWN, peak, baseline, 0, 0, 0, n, points);
        }
        if (flat >= Math.max(MIN_STABLE_SECONDS, STABLE_SHARE * span)) {
            return new MemoryCurve(source, label, s.gpu(), MemoryCurve.Shape.STABLE, peak, baseline,
                    s.time(settle) - s.time(start), 0, span, n, points);
        }
        int from = start + (settle - start) / 2;
        double slopePerSecond = slope(s, from, Math.max(settle, from + 1));
        return new MemoryCurve(source, label, s.gpu(), MemoryCurve.Shape.GROWING, peak, baseline, 0,
                Math.max(0, slopePerSecond * 60), span, n, points);
    }

    private static double slope(MemorySamples s, int from, int to) {
        int m = to - from + 1;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int i = from; i <= to; i++) {
            double x = s.time(i);
            double y = s.used(i);
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        double den = m * sxx - sx * sx;
        return den == 0 ? 0 : (m * sxy - sx * sy) / den;
    }

    private static List<double[]> downsample(MemorySamples s) {
        int n = s.size();
        int step = Math.max(1, (int) Math.ceil(n / (double) MAX_POINTS));
        List<double[]> out = new ArrayList<>();
        for (int i = 0; i < n; i += step) {
            // keep the max of each bucket so a short peak is not lost
            int best = i;
            for (int j = i; j < Math.min(n, i + step); j++) {
                if (s.used(j) > s.used(best)) {
                    best = j;
                }
            }
            out.add(new double[] {round(s.time(i)), s.used(best)});
        }
        return out;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
