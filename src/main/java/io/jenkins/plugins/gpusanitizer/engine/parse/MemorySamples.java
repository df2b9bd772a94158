package io.jenkins.plugins.gpusanitizer.engine.parse;

import java.util.Arrays;

/** GPU memory samples of one GPU: seconds since the first sample and MiB used. */
public final class MemorySamples {
    private double[] seconds = new double[256];
    private double[] usedMiB = new double[256];
    private int size;
    private double totalMiB = -1;
    private final String gpu;

    public MemorySamples(String gpu) {
        this.gpu = gpu;
    }

    public void add(double t, double used, double total) {
        if (size == seconds.length) {
            seconds = Arrays.copyOf(seconds, size * 2);
            usedMiB = Arrays.copyOf(usedMiB, size * 2);
        }
        seconds[size] = t;
        usedMiB[size] = used;
        size++;
        if (total > 0) {
            totalMiB = total;
        }
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

    public String gpu() {
        return gpu;
    }

    public int size() {
        return size;
    }

    public double time(int i) {
        return seconds[i];
    }

    public double used(int i) {
        return usedMiB[i];
    }

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
