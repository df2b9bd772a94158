package io.jenkins.plugins.gpusanitizer.engine.probe;

/**
 * The memory curve's verdict, which the allocation sites must agree with: the probe explains growth
 * that the nvidia-smi curve shows, it never claims growth of its own (the allocator's state a few
 * seconds after start against the end "grows" for any job that allocates after its first seconds).
 *
 * @param shape         {@code growing}, {@code stable}, {@code unknown}, or {@code none} (no curve)
 * @param words         the verdict for people: {@code stable}, {@code too short to judge}, ...
 * @param fromLocalWall start of the curve's judged window, nvidia-smi's local time read as UTC, epoch
 *                      seconds; NaN when unknown
 * @param toLocalWall   its end, likewise
 */
public record MemoryVerdict(String shape, String words, double fromLocalWall, double toLocalWall) {
    public static final MemoryVerdict NONE =
            new MemoryVerdict("none", "no memory curve was recorded", Double.NaN, Double.NaN);

    public boolean growing() {
        return "growing".equals(shape);
    }

    /** Whether the judged window can be placed on a clock at all. */
    public boolean timed() {
        return Double.isFinite(fromLocalWall) && Double.isFinite(toLocalWall) && fromLocalWall <= toLocalWall;
    }
}
