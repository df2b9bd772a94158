package io.jenkins.plugins.gpusanitizer.engine.probe;

import io.jenkins.plugins.gpusanitizer.engine.parse.memory.MemorySamples;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The memory PyTorch's caching allocator reserved in the job's processes, summed, as the probe sampled it in
 * the regression phase: a curve of the job's own memory that no other process on the card can move. It is
 * coarser than nvidia-smi's (a sample a second, then every 2, 4, ... s as the run goes on) and leaves out what
 * nvidia-smi counts outside PyTorch's allocator (the CUDA context, cuBLAS workspaces, NCCL buffers).
 */
public final class AllocatorCurve {
    /** Fewer samples than this are no curve. */
    static final int MIN_SAMPLES = 4;

    private static final double MIB = 1024.0 * 1024;

    private AllocatorCurve() {}

    /**
     * The summed curve on nvidia-smi's clock (local time read as UTC), with 0 MiB at {@code startWallMs} (the
     * card-total samples' start: the job held nothing before its processes started) or just before the first
     * sample; null when the probe placed fewer than {@link #MIN_SAMPLES} samples on a clock.
     */
    public static MemorySamples of(ProbeLog log, String gpu, long startWallMs, double totalMiB) {
        Map<Long, ProbeLog.Process> processes = new HashMap<>();
        log.processes().forEach(p -> processes.putIfAbsent(p.pid(), p));
        List<long[]> events = new ArrayList<>(); // [local wall ms, pid, reserved bytes]
        for (ProbeLog.Allocations a : log.allocations().values()) {
            ProbeLog.Process p = processes.get(a.pid());
            if (p == null || p.startWall() == null) {
                continue; // an older probe without a clock: its samples cannot be placed beside the others
            }
            for (ProbeLog.Sample s : a.samples()) {
                long ms = Math.round((p.startWall() + p.utcOffset() + s.t()) * 1000);
                events.add(new long[] {ms, a.pid(), s.reserved()});
            }
        }
        if (events.size() < MIN_SAMPLES) {
            return null;
        }
        events.sort(Comparator.comparingLong(e -> e[0]));
        long first = events.get(0)[0];
        long t0 = startWallMs > 0 && startWallMs < first ? startWallMs : first - 1;
        MemorySamples curve = new MemorySamples(gpu);
        curve.add(0, 0, totalMiB);
        Map<Long, Long> reserved = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            long[] e = events.get(i);
            reserved.put(e[1], e[2]);
            if (i + 1 < events.size() && events.get(i + 1)[0] == e[0]) {
                continue; // processes sampled at the same millisecond: one point
            }
            long sum = reserved.values().stream().mapToLong(Long::longValue).sum();
            curve.add((e[0] - t0) / 1000.0, sum / MIB, totalMiB);
        }
        curve.startWallMs(t0);
        return curve;
    }
}
