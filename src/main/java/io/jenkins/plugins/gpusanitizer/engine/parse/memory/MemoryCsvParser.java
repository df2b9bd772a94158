package io.jenkins.plugins.gpusanitizer.engine.parse.memory;

import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputFiles;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads {@code nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total,... --format=csv,nounits}
 * samples. Columns are found by their header names (the header keeps {@code [MiB]} even with
 * nounits); values with units ({@code 853 MiB}) are accepted too. Lines that do not parse (a sampler
 * killed mid-line) or hold an impossible value ({@code NaN}, infinite, negative, beyond the GPU's
 * total or any GPU's size) are counted, not fatal, and never reach the curve. Rows out of time order
 * are sorted by their timestamps.
 */
public final class MemoryCsvParser {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSS");

    /** No GPU has this much memory (1 PiB in MiB): a larger memory.used is not a measurement. */
    static final double MAX_MIB = 1024.0 * 1024 * 1024;

    /**
     * Samples per GPU index, in time order, the number of lines skipped, and whether the rows had to be
     * sorted by time.
     */
    public record Result(Map<String, MemorySamples> byGpu, int badLines, boolean reordered) {
        public Result(Map<String, MemorySamples> byGpu, int badLines) {
            this(byGpu, badLines, false);
        }
    }

    public Result parse(Path file) {
        return InputFiles.read(file, in -> parse(in, file));
    }

    public Result parse(InputStream in, Path name) throws IOException {
        BoundedLineReader lines = new BoundedLineReader(InputFiles.reader(in), 4096);
        String header = lines.readLine();
        if (header == null || header.isBlank()) {
            throw new InputException(name, "empty file, expected nvidia-smi --query-gpu CSV with a header line");
        }
        Samples samples = new Samples(Columns.of(header, name));
        String line;
        while ((line = lines.readLine()) != null) {
            if (!line.isBlank()) {
                samples.line(line);
            }
        }
        return samples.result(name);
    }

    /** Where the header puts the columns read; -1 for one it does not have. */
    private record Columns(int time, int index, int used, int total) {
        static Columns of(String header, Path name) {
            String[] cols = header.split(",");
            int time = -1;
            int index = -1;
            int used = -1;
            int total = -1;
            for (int i = 0; i < cols.length; i++) {
                String c = cols[i].trim().toLowerCase(Locale.ROOT);
                if (c.startsWith("timestamp")) {
                    time = i;
                } else if (c.equals("index")) {
                    index = i;
                } else if (c.startsWith("memory.used")) {
                    used = i;
                } else if (c.startsWith("memory.total")) {
                    total = i;
                }
            }
            if (time < 0 || used < 0) {
                throw new InputException(
                        name,
                        "not an nvidia-smi memory CSV: the header needs timestamp and memory.used columns (got '"
                                + SanitizerTextParser.abbreviate(header.trim()) + "')");
            }
            return new Columns(time, index, used, total);
        }
    }

    /** The samples read so far, per GPU, timed from the first row; the lines skipped; whether rows came out of order. */
    private static final class Samples {
        private final Columns col;
        private final Map<String, MemorySamples> byGpu = new LinkedHashMap<>();
        private long t0 = Long.MIN_VALUE;
        private long minMs = Long.MAX_VALUE;
        private long lastMs = Long.MIN_VALUE;
        private boolean reordered;
        private int bad;

        Samples(Columns col) {
            this.col = col;
        }

        void line(String line) {
            String[] v = line.split(",");
            if (v.length <= Math.max(col.time(), col.used())) {
                bad++;
                return;
            }
            try {
                long ms = LocalDateTime.parse(v[col.time()].trim(), TIMESTAMP)
                        .toInstant(ZoneOffset.UTC)
                        .toEpochMilli();
                double used = number(v[col.used()]);
                double total = col.total() >= 0 && col.total() < v.length ? number(v[col.total()]) : -1;
                if (!Double.isFinite(total) || total <= 0 || total > MAX_MIB) {
                    total = -1;
                }
                if (!Double.isFinite(used) || used < 0 || used > (total > 0 ? total : MAX_MIB)) {
                    // one NaN or 1e308 would hide a leak (the peak, the rises and the slope all go wrong)
                    bad++;
                    return;
                }
                if (t0 == Long.MIN_VALUE) {
                    t0 = ms;
                }
                reordered |= ms < lastMs;
                lastMs = ms;
                minMs = Math.min(minMs, ms);
                String gpu = col.index() >= 0 && col.index() < v.length ? v[col.index()].trim() : "0";
                byGpu.computeIfAbsent(gpu, MemorySamples::new).add((ms - t0) / 1000.0, used, total);
            } catch (DateTimeParseException | NumberFormatException e) {
                bad++;
            }
        }

        Result result(Path name) {
            if (byGpu.isEmpty()) {
                throw new InputException(name, "no memory samples (header only or every line malformed)");
            }
            if (reordered || minMs < t0) {
                // rows in reverse (or mixed) time order: the curve is the samples in time order
                double shift = (t0 - minMs) / 1000.0;
                byGpu.values().forEach(s -> s.sortByTime(shift));
            }
            long start = minMs; // time 0 of every GPU's samples, sorted or not
            byGpu.values().forEach(s -> s.startWallMs(start));
            return new Result(byGpu, bad, reordered);
        }
    }

    private static double number(String s) {
        String t = s.trim();
        int space = t.indexOf(' ');
        return Double.parseDouble(space > 0 ? t.substring(0, space) : t);
    }
}
