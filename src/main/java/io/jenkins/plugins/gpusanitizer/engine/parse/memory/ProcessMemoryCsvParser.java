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
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Reads {@code nvidia-smi --query-compute-apps=timestamp,pid,used_memory --format=csv,nounits -lms N} samples
 * (header {@code timestamp, pid, used_gpu_memory [MiB]}; one row per process on the card per sampling pass,
 * nothing in a pass that finds none) and sums the phase's own processes ({@link GpuPids}) pass by pass, so that
 * another process on the same card (the sanitizer run beside the regression run) cannot move the curve.
 *
 * <p>Rows of one pass carry one timestamp; a row more than {@link #SAME_PASS_MS} later, or a pid the pass already
 * has, starts the next. A figure nvidia-smi cannot give ({@code [N/A]}: MIG without the rights, a Windows WDDM
 * driver; {@code [Not Supported]}) leaves that pass out when it is one of the phase's processes. The curve starts
 * with 0 MiB at the card-total samples' start (or just before the first pass): the sampler starts before the job,
 * and nvidia-smi lists a process only once it holds memory.
 */
public final class ProcessMemoryCsvParser {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSS");

    /** Rows of one sampling pass are stamped alike; the sampler loops every 100 ms or more. */
    static final long SAME_PASS_MS = 50;

    /** Distinct pids kept per kind: the rest are counted in the sums, not named. */
    static final int MAX_LISTED = 4096;

    /**
     * @param pids     which listed pids are the phase's
     * @param cardTotal the card-total samples taken beside them: their GPU, time 0 and memory.total; null when
     *                 there are none
     */
    public ProcessMemory parse(Path file, GpuPids pids, MemorySamples cardTotal) {
        return InputFiles.read(file, in -> parse(in, file, pids, cardTotal));
    }

    ProcessMemory parse(InputStream in, Path name, GpuPids pids, MemorySamples cardTotal) throws IOException {
        BoundedLineReader lines = new BoundedLineReader(InputFiles.reader(in), 4096);
        String header = lines.readLine();
        if (header == null || header.isBlank()) {
            throw new InputException(
                    name, "empty file, expected nvidia-smi --query-compute-apps CSV with a header line");
        }
        Columns cols = Columns.of(header);
        if (cols == null) {
            throw new InputException(
                    name,
                    "not an nvidia-smi --query-compute-apps CSV: the header needs timestamp, pid and used_memory"
                            + " columns (got '" + SanitizerTextParser.abbreviate(header.trim()) + "')");
        }
        Sums sums = cardTotal == null
                ? new Sums(pids, "0", 0, -1)
                : new Sums(pids, cardTotal.gpu(), cardTotal.startWallMs(), cardTotal.totalMiB());
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.isBlank() || line.trim().toLowerCase(Locale.ROOT).startsWith("timestamp")) {
                continue; // a header again (a sampler restarted into the same file)
            }
            String[] v = line.split(",");
            if (v.length <= cols.last()) {
                sums.bad++;
                continue;
            }
            try {
                long ms = LocalDateTime.parse(v[cols.time()].trim(), TIMESTAMP)
                        .toInstant(ZoneOffset.UTC)
                        .toEpochMilli();
                long pid = Long.parseLong(v[cols.pid()].trim());
                String used = v[cols.used()].trim();
                double mib = used.startsWith("[") ? Double.NaN : number(used);
                if (pid <= 0 || !used.startsWith("[") && !(mib >= 0 && mib <= MemoryCsvParser.MAX_MIB)) {
                    sums.bad++;
                    continue;
                }
                sums.row(ms, pid, mib);
            } catch (DateTimeParseException | NumberFormatException e) {
                sums.bad++;
            }
        }
        return sums.finish();
    }

    private static double number(String s) {
        int space = s.indexOf(' ');
        return Double.parseDouble(space > 0 ? s.substring(0, space) : s);
    }

    /** Where the three columns are, found by their header names ({@code used_memory} prints as used_gpu_memory). */
    private record Columns(int time, int pid, int used) {
        static Columns of(String header) {
            String[] cols = header.split(",");
            int time = -1;
            int pid = -1;
            int used = -1;
            for (int i = 0; i < cols.length; i++) {
                String c = cols[i].trim().toLowerCase(Locale.ROOT);
                if (c.startsWith("timestamp")) {
                    time = i;
                } else if (c.equals("pid")) {
                    pid = i;
                } else if (c.startsWith("used_gpu_memory") || c.startsWith("used_memory")) {
                    used = i;
                }
            }
            return time < 0 || pid < 0 || used < 0 ? null : new Columns(time, pid, used);
        }

        int last() {
            return Math.max(time, Math.max(pid, used));
        }
    }

    /** The pass being read and what the passes before it added up to. */
    private static final class Sums {
        final GpuPids pids;
        final long cardStartMs;
        final double totalMiB;
        final MemorySamples job;
        final Set<Long> jobPids = new LinkedHashSet<>();
        final Set<Long> otherPids = new LinkedHashSet<>();
        final Set<Long> unknownPids = new LinkedHashSet<>();
        double otherPeak;
        long passes;
        long unavailable;
        int bad;
        boolean reordered;
        long t0 = Long.MIN_VALUE;
        long minMs = Long.MAX_VALUE;
        long lastPassMs = Long.MIN_VALUE;

        long passMs = Long.MIN_VALUE;
        final Set<Long> inPass = new HashSet<>();
        double jobSum;
        double otherSum;
        boolean jobFigureMissing;

        Sums(GpuPids pids, String gpu, long cardStartMs, double totalMiB) {
            this.job = new MemorySamples(gpu);
            this.pids = pids;
            this.cardStartMs = cardStartMs;
            this.totalMiB = totalMiB;
        }

        void row(long ms, long pid, double mib) {
            if (passMs == Long.MIN_VALUE || Math.abs(ms - passMs) > SAME_PASS_MS || inPass.contains(pid)) {
                closePass();
                passMs = ms;
            }
            inPass.add(pid);
            if (pids.ours().contains(pid)) {
                if (Double.isNaN(mib)) {
                    jobFigureMissing = true;
                    unavailable++;
                } else {
                    jobSum += mib;
                    add(jobPids, pid);
                }
            } else {
                otherSum += Double.isNaN(mib) ? 0 : mib;
                add(pids.others().contains(pid) ? otherPids : unknownPids, pid);
            }
        }

        private static void add(Set<Long> set, long pid) {
            if (set.size() < MAX_LISTED) {
                set.add(pid);
            }
        }

        void closePass() {
            if (passMs == Long.MIN_VALUE) {
                return;
            }
            passes++;
            otherPeak = Math.max(otherPeak, otherSum);
            if (!jobFigureMissing) {
                if (t0 == Long.MIN_VALUE) {
                    // the job held nothing before nvidia-smi first listed a process: a 0 at the sampling's start
                    t0 = cardStartMs > 0 && cardStartMs < passMs ? cardStartMs : passMs - 1;
                    job.add(0, 0, totalMiB);
                    minMs = t0;
                }
                reordered |= passMs < lastPassMs;
                lastPassMs = passMs;
                minMs = Math.min(minMs, passMs);
                job.add((passMs - t0) / 1000.0, jobSum, totalMiB);
            }
            passMs = Long.MIN_VALUE;
            inPass.clear();
            jobSum = 0;
            otherSum = 0;
            jobFigureMissing = false;
        }

        ProcessMemory finish() {
            closePass();
            if (t0 != Long.MIN_VALUE) {
                if (reordered || minMs < t0) {
                    job.sortByTime((t0 - minMs) / 1000.0);
                }
                job.startWallMs(minMs);
            }
            return new ProcessMemory(
                    job, jobPids, otherPids, otherPeak, unknownPids, passes, unavailable, bad, reordered);
        }
    }
}
