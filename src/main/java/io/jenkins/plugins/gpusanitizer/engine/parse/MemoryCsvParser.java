package io.jenkins.plugins.gpusanitizer.engine.parse;

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
 * killed mid-line) are counted, not fatal.
 */
public final class MemoryCsvParser {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSS");

    /** Samples per GPU index, in file order, and the number of lines skipped. */
    public record Result(Map<String, MemorySamples> byGpu, int badLines) {}

    public Result parse(Path file) {
        return InputFiles.read(file, in -> parse(in, file));
    }

    public Result parse(InputStream in, Path name) throws IOException {
        BoundedLineReader lines = new BoundedLineReader(InputFiles.reader(in), 4096);
        String header = lines.readLine();
        if (header == null || header.isBlank()) {
            throw new InputException(name, "empty file, expected nvidia-smi --query-gpu CSV with a header line");
        }
        String[] cols = header.split(",");
        int tCol = -1;
        int idxCol = -1;
        int usedCol = -1;
        int totalCol = -1;
        for (int i = 0; i < cols.length; i++) {
            String c = cols[i].trim().toLowerCase(Locale.ROOT);
            if (c.startsWith("timestamp")) {
                tCol = i;
            } else if (c.equals("index")) {
                idxCol = i;
            } else if (c.startsWith("memory.used")) {
                usedCol = i;
            } else if (c.startsWith("memory.total")) {
                totalCol = i;
            }
        }
        if (tCol < 0 || usedCol < 0) {
            throw new InputException(
                    name,
                    "not an nvidia-smi memory CSV: the header needs timestamp and memory.used columns (got '"
                            + SanitizerTextParser.abbreviate(header.trim()) + "')");
        }
        Map<String, MemorySamples> byGpu = new LinkedHashMap<>();
        long t0 = Long.MIN_VALUE;
        int bad = 0;
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            String[] v = line.split(",");
            if (v.length <= Math.max(tCol, usedCol)) {
                bad++;
                continue;
            }
            try {
                long ms = LocalDateTime.parse(v[tCol].trim(), TIMESTAMP)
                        .toInstant(ZoneOffset.UTC)
                        .toEpochMilli();
                double used = number(v[usedCol]);
                double total = totalCol >= 0 && totalCol < v.length ? number(v[totalCol]) : -1;
                if (t0 == Long.MIN_VALUE) {
                    t0 = ms;
                }
                String gpu = idxCol >= 0 && idxCol < v.length ? v[idxCol].trim() : "0";
                byGpu.computeIfAbsent(gpu, MemorySamples::new).add((ms - t0) / 1000.0, used, total);
            } catch (DateTimeParseException | NumberFormatException e) {
                bad++;
            }
        }
        if (byGpu.isEmpty()) {
            throw new InputException(name, "no memory samples (header only or every line malformed)");
        }
        return new Result(byGpu, bad);
    }

    private static double number(String s) {
        String t = s.trim();
        int space = t.indexOf(' ');
        return Double.parseDouble(space > 0 ? t.substring(0, space) : t);
    }
}
