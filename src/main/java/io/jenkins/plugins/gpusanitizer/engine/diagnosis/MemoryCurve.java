package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import java.util.List;
import java.util.Locale;

/**
 * The judged shape of a GPU memory curve (see {@link MemoryCurveAnalyzer} for how).
 *
 * @param source            the CSV it came from
 * @param label             {@code default} or {@code expandable_segments}
 * @param gpu               the GPU index
 * @param shape             stable after warm-up, growing, or unknown (too short or too few samples to judge)
 * @param peakMiB           the highest memory.used
 * @param baselineMiB       memory.used before the job started (other processes, 0 on an idle GPU)
 * @param warmupSeconds     from the job's first use of the GPU to the plateau (stable curves)
 * @param growthMiBPerMin   the growth rate (growing curves), else 0
 * @param durationSeconds   the job's active span in the samples
 * @param samples           the number of samples
 * @param points            a bounded, downsampled copy of the curve for charts: [seconds, MiB]
 * @param judgedFromSeconds start of the judged window (after warm-up), seconds since the first sample
 * @param judgedToSeconds   end of the judged window (the job's last sample above the idle baseline)
 * @param trendMiBPerMin    the Theil–Sen slope of memory.used over the judged window, whatever the shape
 * @param totalMiB          the GPU's memory.total, null when the CSV has none
 * @param hoursToFull       growing curves: hours until memory.used reaches memory.total at {@code
 *                          growthMiBPerMin}; null otherwise or when memory.total is unknown
 * @param lateRiseMiB       a rise in the run's last seconds that the job did not hold long enough to be a
 *                          trend (start-up at the end, e.g. cuDNN autotuning), else 0
 * @param policy            the thresholds it was judged with
 * @param description       one line for people
 * @param basis             which figures the curve is: the job's own processes, the card's total, or PyTorch's
 *                          allocator as the probe saw it
 * @param basisNote         one line for people: which curve was judged and why that one
 */
public record MemoryCurve(
        String source,
        String label,
        String gpu,
        Shape shape,
        double peakMiB,
        double baselineMiB,
        double warmupSeconds,
        double growthMiBPerMin,
        double durationSeconds,
        int samples,
        List<double[]> points,
        double judgedFromSeconds,
        double judgedToSeconds,
        double trendMiBPerMin,
        Double totalMiB,
        Double hoursToFull,
        double lateRiseMiB,
        Policy policy,
        String description,
        Basis basis,
        String basisNote) {

    /** Which figures a curve is. */
    public enum Basis {
        /** nvidia-smi's per-process figures, summed over the job's own processes. */
        PER_PROCESS("per-process"),
        /** nvidia-smi's memory.used of the whole card: every process on it. */
        CARD_TOTAL("card-total"),
        /** the memory PyTorch's caching allocator reserved in the job's processes, as the probe sampled it. */
        PROBE_ALLOCATOR("probe-allocator");

        private final String id;

        Basis(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }
    }

    public enum Shape {
        STABLE,
        GROWING,
        UNKNOWN;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * How a curve is judged.
     *
     * @param minJudgedSeconds a run whose part after warm-up is shorter than this is not judged
     * @param fillHorizonHours growth is a leak when it would fill the GPU within this many hours
     */
    public record Policy(double minJudgedSeconds, double fillHorizonHours) {
        /** A week (a long training run) and 10 s after warm-up. */
        public static final Policy DEFAULT = new Policy(10, 7 * 24);

        public Policy {
            if (!(minJudgedSeconds >= 0) || Double.isInfinite(minJudgedSeconds)) {
                throw new IllegalArgumentException(
                        "minimum judged duration must be 0 or more seconds, got " + minJudgedSeconds);
            }
            if (!(fillHorizonHours > 0)) {
                throw new IllegalArgumentException("fill horizon must be more than 0 hours, got " + fillHorizonHours);
            }
        }
    }

    /** Whether the curve grows fast enough to fill the GPU within the policy's horizon (or of unknown size). */
    public boolean fillsWithin(double horizonHours) {
        return shape == Shape.GROWING && (hoursToFull == null || hoursToFull <= horizonHours);
    }

    public String describe() {
        return description;
    }

    /** MiB/min with sensible precision: 0, 0.04, 1.6, 96, 69498. */
    public static String rate(double perMin) {
        double a = Math.abs(perMin);
        return String.format(Locale.ROOT, a >= 10 || a == 0 ? "%.0f" : a >= 1 ? "%.1f" : "%.2f", perMin);
    }

    /** A duration for people: 40 s, 12 min, 25 h, 7 days, 9.5 days, 98 days. */
    public static String duration(double hours) {
        if (hours < 1.0 / 60) {
            return String.format(Locale.ROOT, "%.0f s", hours * 3600);
        }
        if (hours < 1) {
            return String.format(Locale.ROOT, "%.0f min", hours * 60);
        }
        if (hours < 48) {
            return String.format(Locale.ROOT, "%.0f h", hours);
        }
        double days = hours / 24;
        boolean whole = Math.abs(days - Math.rint(days)) < 0.05;
        return String.format(Locale.ROOT, days < 10 && !whole ? "%.1f days" : "%.0f days", days);
    }
}
