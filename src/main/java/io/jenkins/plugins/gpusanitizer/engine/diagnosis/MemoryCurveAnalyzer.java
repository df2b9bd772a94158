package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import io.jenkins.plugins.gpusanitizer.engine.parse.MemorySamples;
import java.util.ArrayList;
import java.util.List;

/**
 * Judges a memory curve. The job's span starts at the first sample above the idle baseline and ends
 * at the last one above it. A leak is sustained growth: many rises of memory.used, spread over most
 * of the run and still happening near its end; its rate is the least-squares slope from the first
 * rises in the second half of the climb. Start-up (CUDA context, cuDNN workspaces, the allocator's first segments) is a few rises
 * early in the run: the curve is stable once it then holds its level for a while. A run too short
 * to hold its level after warm-up is not judged (seen on the H200: a 10 s job rises in its last
 * second and ends).
 */
public final class MemoryCurveAnalyzer {
    /** Rises below this are nvidia-smi noise. */
    static final double RISE_MIB = 4;
    /** Fewer rises than this after the job started are warm-up, not growth. */
    static final int MIN_RISES = 5;

    static final double MIN_STABLE_SECONDS = 2.0;
    static final int MAX_POINTS = 400;

    public MemoryCurve analyze(MemorySamples s, String source, String label) {
        int n = s.size();
        List<double[]> points = downsample(s);
        if (n < 4) {
            return new MemoryCurve(
                    source,
                    label,
                    s.gpu(),
                    MemoryCurve.Shape.UNKNOWN,
                    s.maxUsed(),
                    n == 0 ? 0 : s.used(0),
                    0,
                    0,
                    n == 0 ? 0 : s.time(n - 1) - s.time(0),
                    n,
                    points);
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
            return new MemoryCurve(
                    source, label, s.gpu(), MemoryCurve.Shape.UNKNOWN, s.maxUsed(), baseline, 0, 0, 0, n, points);
        }
        double peak = 0;
        for (int i = start; i <= end; i++) {
            peak = Math.max(peak, s.used(i));
        }
        List<Integer> rises = new ArrayList<>();
        for (int i = start + 1; i <= end; i++) {
            if (s.used(i) - s.used(i - 1) > RISE_MIB) {
                rises.add(i);
            }
        }
        double span = s.time(end) - s.time(start);
        int lastRise = rises.isEmpty() ? start : rises.get(rises.size() - 1);
        if (rises.size() >= MIN_RISES) {
            int first = rises.get(0);
            double window = s.time(end) - s.time(first);
            double rising = s.time(lastRise) - s.time(first);
            if (window > 0 && rising >= 0.5 * window && s.time(end) - s.time(lastRise) <= 0.25 * window) {
                // the rate of the later rises: the first ones may still be start-up
                int from = rises.get(rises.size() / 2);
                return new MemoryCurve(
                        source,
                        label,
                        s.gpu(),
                        MemoryCurve.Shape.GROWING,
                        peak,
                        baseline,
                        0,
                        Math.max(0, slope(s, from, lastRise) * 60),
                        span,
                        n,
                        points);
            }
        }
        double tol = Math.max(32, 0.02 * (peak - baseline));
        int settle = start;
        while (settle <= end && s.used(settle) < peak - tol) {
            settle++;
        }
        double held = s.time(end) - s.time(Math.max(settle, lastRise));
        if (held >= MIN_STABLE_SECONDS) {
            return new MemoryCurve(
                    source,
                    label,
                    s.gpu(),
                    MemoryCurve.Shape.STABLE,
                    peak,
                    baseline,
                    s.time(settle) - s.time(start),
                    0,
                    span,
                    n,
                    points);
        }
        return new MemoryCurve(
                source,
                label,
                s.gpu(),
                MemoryCurve.Shape.UNKNOWN,
                peak,
                baseline,
                s.time(settle) - s.time(start),
                0,
                span,
                n,
                points);
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
