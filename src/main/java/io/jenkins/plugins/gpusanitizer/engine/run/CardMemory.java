package io.jenkins.plugins.gpusanitizer.engine.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The card's memory as the nvidia-smi sampler has written it so far (a CSV with its header: {@code timestamp, index,
 * memory.used [MiB], memory.total [MiB], ...}): the first sample, the peak and the card's size. Read while the sampler
 * still writes, so a last line without its end is left out (it may be a number cut short).
 *
 * @param firstUsedMiB memory in use at the first sample (before the jobs beside it allocated)
 * @param peakUsedMiB  the most in use at any sample
 * @param totalMiB     the card's memory
 * @param samples      the samples read
 */
record CardMemory(double firstUsedMiB, double peakUsedMiB, double totalMiB, int samples) {
    /**
     * nvidia-smi sampling the card's memory into the CSV this reads (the phase's sidecar, so it runs where the job
     * runs): only what the room needs, so that it is never taken for the regression run's curve.
     */
    static List<String> samplerArgv(Path nvidiaSmi, String gpu, int intervalMs) {
        return List.of(
                nvidiaSmi.toString(),
                "--query-gpu=timestamp,index,memory.used,memory.total",
                "--format=csv,nounits",
                "-lms",
                Integer.toString(intervalMs),
                "-i",
                gpu);
    }

    /** Above this much beyond the first sample, the jobs beside the sampler have visibly taken memory. */
    static final double RISE_MIB = 1;

    /** Whether the jobs beside the sampler took memory since its first sample: their need is seen, if in part. */
    boolean rose() {
        return peakUsedMiB - firstUsedMiB >= RISE_MIB;
    }

    /** Free at the peak. */
    double freeAtPeakMiB() {
        return totalMiB - peakUsedMiB;
    }

    /** The samples so far, or null when there is none with both figures (no file yet, nvidia-smi printed [N/A]). */
    static CardMemory read(Path csv) {
        String text;
        try {
            if (!Files.isRegularFile(csv)) {
                return null;
            }
            text = Files.readString(csv, StandardCharsets.ISO_8859_1);
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
        List<String> lines = List.of(text.split("\n", -1));
        if (lines.size() < 2) {
            return null;
        }
        String[] header = lines.get(0).split(",");
        int used = column(header, "memory.used");
        int total = column(header, "memory.total");
        if (used < 0 || total < 0) {
            return null;
        }
        Double first = null;
        double peak = 0;
        double size = 0;
        int samples = 0;
        // the last element is what follows the last line end: a line still being written, or nothing
        for (String line : lines.subList(1, lines.size() - 1)) {
            String[] fields = line.split(",");
            Double u = number(fields, used);
            Double t = number(fields, total);
            if (u == null || t == null || t <= 0 || u > t) {
                continue;
            }
            first = first == null ? u : first;
            peak = Math.max(peak, u);
            size = t;
            samples++;
        }
        return first == null ? null : new CardMemory(first, peak, size, samples);
    }

    private static int column(String[] header, String name) {
        for (int i = 0; i < header.length; i++) {
            if (header[i].trim().startsWith(name)) {
                return i;
            }
        }
        return -1;
    }

    private static Double number(String[] fields, int at) {
        if (at >= fields.length) {
            return null;
        }
        try {
            double value = Double.parseDouble(fields[at].trim());
            return Double.isFinite(value) && value >= 0 ? value : null;
        } catch (NumberFormatException e) {
            return null; // [N/A], [Insufficient Permissions], ...
        }
    }
}
