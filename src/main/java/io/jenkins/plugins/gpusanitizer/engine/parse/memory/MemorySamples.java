package io.jenkins.plugins.gpusanitizer.engine.parse.memory;

import java.util.Arrays;

/**
 * GPU memory samples of one GPU: seconds since the first sample and MiB used. Memory is bounded: past
 * {@link #MAX_KEPT} samples (a day at 250 ms is 345,600), every two neighbours are merged into the
 * higher one and later samples are merged in ever larger runs, so a week-long CSV keeps its shape and
 * its peak in at most {@code MAX_KEPT} points.
 */
public final class MemorySamples {
    /** The most samples kept; a power of two. */
    public static final int MAX_KEPT = 1 << 16;

    private final int maxKept;
    private double[] seconds = new double[256];
    private double[] usedMiB = new double[256];
    private int size;
    private double totalMiB = -1;
    private final String gpu;
    /** how many raw samples each kept sample stands for */
    private long stride = 1;
    /** raw samples merged into the last kept one so far */
    private long inLast;

    private long raw;
    /** The wall clock of time 0 (nvidia-smi's local time read as UTC), epoch ms; 0 when unknown. */
    private long startWallMs;

    public MemorySamples(String gpu) {
        this(gpu, MAX_KEPT);
    }

    MemorySamples(String gpu, int maxKept) {
        this.gpu = gpu;
        this.maxKept = maxKept;
    }

    public void add(double t, double used, double total) {
        raw++;
        if (total > 0) {
            totalMiB = total;
        }
        if (inLast > 0 && inLast < stride) {
            // merge into the last kept sample, keeping the higher one (and its time)
            inLast++;
            if (used > usedMiB[size - 1]) {
                usedMiB[size - 1] = used;
                seconds[size - 1] = t;
            }
            return;
        }
        if (size == maxKept) {
            halve();
        }
        if (size == seconds.length) {
            seconds = Arrays.copyOf(seconds, Math.min(maxKept, size * 2));
            usedMiB = Arrays.copyOf(usedMiB, seconds.length);
        }
        seconds[size] = t;
        usedMiB[size] = used;
        size++;
        inLast = 1;
    }

    private void halve() {
        int out = 0;
        for (int i = 0; i < size; i += 2) {
            int best = i + 1 < size && usedMiB[i + 1] > usedMiB[i] ? i + 1 : i;
            seconds[out] = seconds[best];
            usedMiB[out] = usedMiB[best];
            out++;
        }
        size = out;
        stride *= 2;
        // every kept sample, the last included, now stands for a full run of the new stride
        inLast = stride;
    }

    /** Sorts the samples by time (stably) and adds {@code shift} seconds to every time. */
    void sortByTime(double shift) {
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(seconds[a], seconds[b]));
        double[] t = new double[seconds.length];
        double[] u = new double[usedMiB.length];
        for (int i = 0; i < size; i++) {
            t[i] = seconds[order[i]] + shift;
            u[i] = usedMiB[order[i]];
        }
        seconds = t;
        usedMiB = u;
    }

    /** Places time 0 on the wall clock (epoch ms, nvidia-smi's local time read as UTC). */
    public void startWallMs(long ms) {
        startWallMs = ms;
    }

    /**
     * The wall clock of time 0 in epoch milliseconds, nvidia-smi's local time read as UTC (it prints no
     * zone); 0 when unknown. What lines the curve up with the probe's allocator samples.
     */
    public long startWallMs() {
        return startWallMs;
    }

    public String gpu() {
        return gpu;
    }

    public int size() {
        return size;
    }

    /** The number of samples read, before merging. */
    public long rawSamples() {
        return raw;
    }

    public double time(int i) {
        return seconds[i];
    }

    public double used(int i) {
        return usedMiB[i];
    }

    /** memory.total of the GPU in MiB, or -1 when the CSV has no such column. */
    public double totalMiB() {
        return totalMiB;
    }

    public double maxUsed() {
        double max = 0;
        for (int i = 0; i < size; i++) {
            max = Math.max(max, usedMiB[i]);
        }
        return max;
    }
}
