package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import io.jenkins.plugins.gpusanitizer.engine.parse.memory.MemorySamples;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Judges a memory curve.
 *
 * <ol>
 *   <li>The job's span runs from the first sample above the idle baseline to the last one above it
 *       (the sampler runs a little before and after the job).
 *   <li>Warm-up is the first quarter of that span (CUDA context, model, optimizer state, cuDNN
 *       workspaces, the caching allocator's first segments); the rest is the judged window. A judged
 *       window shorter than the policy's minimum (default 10 s) or with fewer than 8 samples is
 *       <em>too short to judge</em>: no verdict.
 *   <li>The trend is the Theil–Sen slope of memory.used over the judged window (the median of the
 *       slopes between every two points, on at most 512 bucket medians): robust to the caching
 *       allocator's steps and to a few outliers, unlike a least-squares fit or counting rises.
 *   <li>Growth is sustained when the judged window, cut into 5 windows of equal time, has median levels
 *       that never fall (by more than 4 MiB or 1 %), rise in at least 3 of the 4 steps between them and
 *       still rise in one of the last two; memory still reaches new highs in the last quarter of the
 *       window; the last window's low is above the first window's high (by more than 4 MiB); and no
 *       stretch of a fifth of the window holds more than half of the window's rise. A single step or
 *       a few (a bigger batch, an evaluation pass, cuDNN autotuning, torch.compile), memory that went
 *       up and came back down, or a rise in the last seconds of the run is not a trend. Sustained
 *       growth with a positive trend is {@code GROWING}; the time to fill the card is (memory.total −
 *       last memory.used) / trend.
 *   <li>Otherwise the curve is {@code STABLE} if it held its level long enough: from where memory
 *       first came within 32 MiB (or 2 %) of its highest level — when that is later than the first
 *       quarter — to the end of the run or to a rise in the run's last seconds (the last rise less than
 *       2 s before the end, not held: start-up at the end), at least the minimum. Else it is too short
 *       to judge: the job ended while still warming up (seen on the H200: a 15 s job with {@code
 *       cudnn.benchmark} autotuned for its first 7.8 s).
 * </ol>
 *
 * Whether growth makes the build unstable is the gate's decision (the fill horizon, {@link
 * io.jenkins.plugins.gpusanitizer.engine.gate.Gate}).
 */
public final class MemoryCurveAnalyzer {
    /** A rise between two samples above this is an allocation; below it is nvidia-smi noise. */
    static final double RISE_MIB = 4;
    /** The share of the job's span that is warm-up. */
    static final double WARMUP_FRACTION = 0.25;
    /** Windows the judged part is cut into to tell sustained growth from a step. */
    static final int WINDOWS = 5;
    /** A rise that the job holds at least this long is a level, not a rise at the very end. */
    static final double MIN_STABLE_SECONDS = 2.0;
    /** The most of the judged window's rise that a fifth of it may hold: more is an event's step, not a leak. */
    static final double MAX_STEP_SHARE = 0.5;
    /** Fewer samples than this after warm-up are too few to judge whatever the time they span. */
    static final int MIN_JUDGED_SAMPLES = 8;
    /** Theil–Sen runs on at most this many bucket medians: 130,816 slopes. */
    static final int MAX_TREND_POINTS = 512;

    static final int MAX_POINTS = 400;

    private final MemoryCurve.Policy policy;

    public MemoryCurveAnalyzer() {
        this(MemoryCurve.Policy.DEFAULT);
    }

    public MemoryCurveAnalyzer(MemoryCurve.Policy policy) {
        this.policy = policy;
    }

    /** Judges the card's total, as sampled for a run that had the card to itself. */
    public MemoryCurve analyze(MemorySamples s, String source, String label) {
        return analyze(s, source, label, MemoryCurve.Basis.CARD_TOTAL, null);
    }

    /** Judges a curve of the given figures; {@code basisNote} says which and why, for people. */
    public MemoryCurve analyze(
            MemorySamples s, String source, String label, MemoryCurve.Basis basis, String basisNote) {
        return new Judge(s, source, label, basis, basisNote).judge();
    }

    /** The curve, not judged: {@code why} is its description (a shared card without figures of the job's own). */
    public MemoryCurve notJudged(
            MemorySamples s, String source, String label, MemoryCurve.Basis basis, String basisNote, String why) {
        return new Judge(s, source, label, basis, basisNote).curve(why);
    }

    /** The last rise of a run that ends on one, where the held level ends, and the words for it. */
    private record LateRise(int lastRise, int levelEnd, String words) {}

    /** One curve's judgement; fields filled as it goes. */
    private final class Judge {
        final MemorySamples s;
        final String source;
        final String label;
        final MemoryCurve.Basis basis;
        final String basisNote;
        final int n;
        final List<double[]> points;
        final Double total;
        MemoryCurve.Shape shape = MemoryCurve.Shape.UNKNOWN;
        double peak;
        double baseline;
        double warmup;
        double growth;
        double duration;
        double judgedFrom;
        double judgedTo;
        double trend;
        Double hoursToFull;
        double lateRise;

        Judge(MemorySamples s, String source, String label, MemoryCurve.Basis basis, String basisNote) {
            this.s = s;
            this.source = source;
            this.label = label;
            this.basis = basis;
            this.basisNote = basisNote;
            this.n = s.size();
            this.points = downsample(s);
            this.total = s.totalMiB() > 0 ? s.totalMiB() : null;
            this.peak = s.maxUsed();
            this.baseline = n == 0 ? 0 : s.used(0);
        }

        /**
         * The steps: find where the job's memory rose above idle and where it fell back; too short a span
         * after warm-up is not judged; sustained growth is growing; else the level it held is stable, unless
         * it did not hold it long enough.
         */
        MemoryCurve judge() {
            if (n < 4) {
                return curve(String.format(Locale.ROOT, "not enough samples to judge (%d)", n));
            }
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
                return curve(String.format(
                        Locale.ROOT,
                        "not judged: memory never rose above the idle %.0f MiB for two samples (peak %.0f MiB)",
                        baseline,
                        peak));
            }
            peak = 0;
            for (int i = start; i <= end; i++) {
                peak = Math.max(peak, s.used(i));
            }
            duration = s.time(end) - s.time(start);
            judgedFrom = s.time(start) + WARMUP_FRACTION * duration;
            judgedTo = s.time(end);
            int from = start;
            while (s.time(from) < judgedFrom) {
                from++;
            }
            trend = theilSen(s, from, end) * 60;
            double judged = judgedTo - judgedFrom;
            if (judged < policy.minJudgedSeconds() || end - from + 1 < MIN_JUDGED_SAMPLES) {
                warmup = s.time(settle(start, end, peak)) - s.time(start);
                return curve(String.format(
                        Locale.ROOT,
                        "too short to judge: %.1f s after %.1f s of warm-up, %.0f s needed (peak %.0f MiB)",
                        Math.max(0, judged),
                        judgedFrom - s.time(start),
                        policy.minJudgedSeconds(),
                        peak));
            }
            if (sustained(start, from, end) && trend > 0) {
                return growing(from, end, judged);
            }
            return levelled(start, from, end);
        }

        /** Sustained growth: its rate, and when the card would be full at that rate. */
        private MemoryCurve growing(int from, int end, double judged) {
            shape = MemoryCurve.Shape.GROWING;
            growth = trend;
            String full;
            if (total == null) {
                full = "memory.total was not sampled: no time to full";
            } else {
                hoursToFull = Math.max(0, total - s.used(end)) / growth / 60;
                full = String.format(
                        Locale.ROOT,
                        "the %.0f MiB card would be full in %s at that rate (%s the fill horizon of %s)",
                        total,
                        MemoryCurve.duration(hoursToFull),
                        hoursToFull <= policy.fillHorizonHours() ? "within" : "beyond",
                        MemoryCurve.duration(policy.fillHorizonHours()));
            }
            return curve(String.format(
                    Locale.ROOT,
                    "growing %s MiB/min after warm-up (%.0f → %.0f MiB over the judged %.0f s; peak %.0f MiB): %s",
                    MemoryCurve.rate(growth),
                    s.used(from),
                    s.used(end),
                    judged,
                    peak,
                    full));
        }

        /**
         * No sustained growth: stable when memory held its level long enough, judged from where it reached that
         * level (warm-up may run past the first quarter: cuDNN autotuning the first shapes for seconds) up to a
         * late rise; else too short to judge.
         */
        private MemoryCurve levelled(int start, int from, int end) {
            LateRise late = lateRise(start, end);
            int levelEnd = late.levelEnd();
            double level = 0;
            for (int i = start; i <= levelEnd; i++) {
                level = Math.max(level, s.used(i));
            }
            int settled = settle(start, levelEnd, level);
            warmup = s.time(settled) - s.time(start);
            int heldFrom = Math.max(from, settled);
            double held = s.time(levelEnd) - s.time(heldFrom);
            if (held < policy.minJudgedSeconds() || levelEnd - heldFrom + 1 < MIN_JUDGED_SAMPLES) {
                return curve(
                        levelEnd < end
                                ? String.format(
                                        Locale.ROOT,
                                        "too short to judge: the run ended %.1f s after its last rise (+%.0f MiB in its last %.1f s)"
                                                + ", before memory held a level for %.0f s (peak %.0f MiB)",
                                        judgedTo - s.time(late.lastRise()),
                                        lateRise,
                                        judgedTo - s.time(levelEnd),
                                        policy.minJudgedSeconds(),
                                        peak)
                                : String.format(
                                        Locale.ROOT,
                                        "too short to judge: warm-up (up to the %.0f MiB level) took %.1f s of the %.1f s"
                                                + " run, leaving %.1f s, %.0f s needed",
                                        level,
                                        warmup,
                                        duration,
                                        Math.max(0, held),
                                        policy.minJudgedSeconds()));
            }
            shape = MemoryCurve.Shape.STABLE;
            judgedFrom = s.time(heldFrom);
            judgedTo = s.time(levelEnd);
            trend = theilSen(s, heldFrom, levelEnd) * 60;
            return curve(String.format(
                    Locale.ROOT,
                    "stable after %.1f s warm-up, peak %.0f MiB (no sustained growth over the judged %.0f s, trend %s MiB/min)%s",
                    warmup,
                    peak,
                    judgedTo - judgedFrom,
                    MemoryCurve.rate(trend),
                    late.words()));
        }

        /**
         * A run that ends on a rise: where that burst of rises began (the level ends before it) and how much it
         * added; else the level runs to {@code end}.
         */
        private LateRise lateRise(int start, int end) {
            int lastRise = -1;
            for (int i = end; i > start; i--) {
                if (rise(i)) {
                    lastRise = i;
                    break;
                }
            }
            if (!(lastRise > 0 && judgedTo - s.time(lastRise) < MIN_STABLE_SECONDS)) {
                return new LateRise(lastRise, end, "");
            }
            int burst = lastRise;
            for (int i = lastRise - 1; i > start && s.time(burst) - s.time(i) < MIN_STABLE_SECONDS; i--) {
                if (rise(i)) {
                    burst = i;
                }
            }
            int levelEnd = burst - 1;
            lateRise = s.used(end) - s.used(levelEnd);
            return new LateRise(
                    lastRise,
                    levelEnd,
                    String.format(
                            Locale.ROOT,
                            "; +%.0f MiB in the run's last %.1f s, not held: start-up at the end, not a trend",
                            lateRise,
                            judgedTo - s.time(levelEnd)));
        }

        private boolean rise(int i) {
            return s.used(i) - s.used(i - 1) > RISE_MIB;
        }

        /** The first sample from {@code start} within tolerance (32 MiB or 2 %) of {@code level}. */
        private int settle(int start, int end, double level) {
            double tol = Math.max(32, 0.02 * (level - baseline));
            int i = start;
            while (i < end && s.used(i) < level - tol) {
                i++;
            }
            return i;
        }

        /**
         * Sustained growth over samples {@code from..to}: the median levels of {@link #WINDOWS}
         * equal-time windows never fall, rise from window to window at least three times in four and
         * still rise in one of the last two; memory still reaches new highs (above everything
         * before, warm-up included) in the last quarter of the window; and the rise is held and
         * spread ({@link #heldAndSpread}). Memory that went up and came back down, or that stopped
         * rising, is not a leak.
         */
        private boolean sustained(int start, int from, int to) {
            double t0 = s.time(from);
            double span = s.time(to) - t0;
            double high = 0;
            for (int i = start; i < from; i++) {
                high = Math.max(high, s.used(i));
            }
            int lastHigh = -1;
            for (int i = from; i <= to; i++) {
                if (s.used(i) > high) {
                    high = s.used(i);
                    lastHigh = i;
                }
            }
            if (lastHigh < 0 || s.time(to) - s.time(lastHigh) > 0.25 * span) {
                return false;
            }
            List<Double> levels = new ArrayList<>();
            int i = from;
            for (int w = 0; w < WINDOWS; w++) {
                double limit = t0 + span * (w + 1) / WINDOWS;
                int j = i;
                while (j <= to && (s.time(j) < limit || w == WINDOWS - 1)) {
                    j++;
                }
                if (j > i) {
                    levels.add(median(s, i, j - 1));
                }
                i = j;
            }
            int rises = 0;
            int lastRise = -1;
            for (int k = 1; k < levels.size(); k++) {
                double a = levels.get(k - 1);
                double b = levels.get(k);
                if (b < a - Math.max(RISE_MIB, 0.01 * a)) {
                    return false;
                }
                if (b > a) {
                    rises++;
                    lastRise = k;
                }
            }
            int steps = levels.size() - 1;
            return rises >= Math.max(2, Math.ceil(0.75 * steps))
                    && lastRise >= steps - 1
                    && heldAndSpread(from, to, t0, span);
        }

        /**
         * A leak adds memory all the time; a one-off event (cuDNN autotuning a new shape, torch.compile, a first
         * evaluation) adds it at once, and a few such steps still make rising window medians. So the last
         * window's low must clear the first window's high (memory kept, not a peak), and no fifth of the window
         * may hold more than half of its rise: on the H100 cudnn.benchmark's step held 0.83 of it, nanoGPT's
         * compilation and last evaluation 0.79; the recorded leaks 0.20-0.23.
         */
        private boolean heldAndSpread(int from, int to, double t0, double span) {
            double window = span / WINDOWS;
            double firstHigh = 0;
            double lastLow = Double.MAX_VALUE;
            double low = Double.MAX_VALUE;
            double high = 0;
            for (int i = from; i <= to; i++) {
                double u = s.used(i);
                if (s.time(i) < t0 + window) {
                    firstHigh = Math.max(firstHigh, u);
                }
                if (s.time(i) >= t0 + span - window) {
                    lastLow = Math.min(lastLow, u);
                }
                low = Math.min(low, u);
                high = Math.max(high, u);
            }
            return lastLow > firstHigh + RISE_MIB && riseWithin(from, to, window) <= MAX_STEP_SHARE * (high - low);
        }

        /** The largest rise from a sample to a later one at most {@code seconds} after it, in {@code from..to}. */
        private double riseWithin(int from, int to, double seconds) {
            // indices of the lows still in reach, memory.used ascending: the first is the lowest
            int[] lows = new int[to - from + 1];
            int head = 0;
            int tail = 0;
            double best = 0;
            for (int j = from; j <= to; j++) {
                while (tail > head && s.used(lows[tail - 1]) >= s.used(j)) {
                    tail--;
                }
                lows[tail++] = j;
                while (s.time(j) - s.time(lows[head]) > seconds) {
                    head++;
                }
                best = Math.max(best, s.used(j) - s.used(lows[head]));
            }
            return best;
        }

        private MemoryCurve curve(String description) {
            return new MemoryCurve(
                    source,
                    label,
                    s.gpu(),
                    shape,
                    peak,
                    baseline,
                    warmup,
                    growth,
                    duration,
                    n,
                    points,
                    judgedFrom,
                    judgedTo,
                    trend,
                    total,
                    hoursToFull,
                    lateRise,
                    policy,
                    description,
                    basis,
                    basisNote);
        }
    }

    /**
     * The Theil–Sen slope (MiB/s) of samples {@code from..to}: the median of the slopes between every
     * two points, on at most {@link #MAX_TREND_POINTS} bucket medians so that a week of samples costs
     * what 512 do.
     */
    static double theilSen(MemorySamples s, int from, int to) {
        int count = to - from + 1;
        if (count < 2) {
            return 0;
        }
        int m = Math.min(count, MAX_TREND_POINTS);
        double[] x = new double[m];
        double[] y = new double[m];
        for (int b = 0; b < m; b++) {
            int lo = from + (int) ((long) count * b / m);
            int hi = from + (int) ((long) count * (b + 1) / m) - 1;
            x[b] = (s.time(lo) + s.time(hi)) / 2;
            y[b] = median(s, lo, hi);
        }
        double[] slopes = new double[m * (m - 1) / 2];
        int k = 0;
        for (int i = 0; i < m; i++) {
            for (int j = i + 1; j < m; j++) {
                double dx = x[j] - x[i];
                if (dx > 0) {
                    slopes[k++] = (y[j] - y[i]) / dx;
                }
            }
        }
        if (k == 0) {
            return 0;
        }
        Arrays.sort(slopes, 0, k);
        return k % 2 != 0 ? slopes[k / 2] : (slopes[k / 2 - 1] + slopes[k / 2]) / 2;
    }

    private static double median(MemorySamples s, int lo, int hi) {
        double[] v = new double[hi - lo + 1];
        for (int i = lo; i <= hi; i++) {
            v[i - lo] = s.used(i);
        }
        Arrays.sort(v);
        int c = v.length;
        return c % 2 == 1 ? v[c / 2] : (v[c / 2 - 1] + v[c / 2]) / 2;
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
