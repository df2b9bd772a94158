package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import java.util.List;
import java.util.Locale;

/**
 * The judged shape of a GPU memory curve.
 *
 * @param source          the CSV it came from
 * @param label           {@code default} or {@code expandable_segments}
 * @param gpu             the GPU index
 * @param shape           stable after warm-up, growing, or unknown (too few samples)
 * @param peakMiB         the highest memory.used
 * @param baselineMiB     memory.used before the job started (other processes, 0 on an idle GPU)
 * @param warmupSeconds   from the job's first use of the GPU to the plateau (stable curves)
 * @param growthMiBPerMin the growth rate (growing curves), else 0
 * @param durationSeconds the job's active span in the samples
 * @param samples         the number of samples
 * @param points          a bounded, downsampled copy of the curve for charts: [seconds, MiB]
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
        List<double[]> points) {

    public enum Shape {
        STABLE,
        GROWING,
        UNKNOWN;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public String describe() {
        return switch (shape) {
            case STABLE ->
                String.format(Locale.ROOT, "stable after %.1f s warm-up, peak %.0f MiB", warmupSeconds, peakMiB);
            case GROWING ->
                String.format(
                        Locale.ROOT,
                        "growing %.0f MiB/min through the run (peak %.0f MiB after %.1f s)",
                        growthMiBPerMin,
                        peakMiB,
                        durationSeconds);
            case UNKNOWN ->
                samples < 4
                        ? String.format(Locale.ROOT, "not enough samples to judge (%d)", samples)
                        : String.format(
                                Locale.ROOT,
                                "too short to judge: the run ended %.1f s after its last rise (peak %.0f MiB)",
                                Math.max(0, durationSeconds - warmupSeconds),
                                peakMiB);
        };
    }
}
