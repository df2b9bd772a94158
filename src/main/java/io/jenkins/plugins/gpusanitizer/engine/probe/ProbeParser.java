package io.jenkins.plugins.gpusanitizer.engine.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@code probe.jsonl}: bounded (bytes, line length, records, samples per process), tolerant
 * (a line cut by a crash, a line that is not JSON, an unknown record type or a missing field are
 * counted or skipped, never fatal). It never throws: a file it cannot read is an error in the log.
 */
public final class ProbeParser {
    public static final long MAX_BYTES = 64L * 1024 * 1024;
    static final int MAX_LINE = 256 * 1024;
    static final int MAX_RECORDS = 200_000;
    static final int MAX_SAMPLES_PER_PROCESS = 5_000;
    static final int MAX_SITES_PER_PROCESS = 10_000;
    static final int MAX_FAILURES = 200;
    static final int MAX_ERRORS = 50;
    static final int MAX_FRAMES = 8;
    static final int MAX_ARGS = 8;
    static final int MAX_SITES_PER_SAMPLE = 100;
    /** Census counts kept: one per growth of a process's distinct kernels, bounded by the census's own slots. */
    static final int MAX_CENSUS_COUNTS = 1 << 16;
    /** Distinct files opened outside the copy kept: a job that reads a dataset of many files outside names enough. */
    static final int MAX_STATE = 1_000;

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    /** A log for a phase whose probe was on but which has no file. */
    public static ProbeLog absent(String phase, Path file) {
        return new ProbeLog(
                phase,
                file.toString(),
                false,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                Map.of(),
                List.of(),
                Map.of(),
                List.of(),
                0,
                0,
                false,
                false,
                List.of(),
                List.of(),
                List.of());
    }

    public ProbeLog parse(String phase, Path file) {
        if (!Files.isRegularFile(file)) {
            return absent(phase, file);
        }
        State s = new State();
        try (InputStream raw = Files.newInputStream(file);
                BoundedLineReader in = new BoundedLineReader(
                        new InputStreamReader(
                                new LimitedStream(raw, MAX_BYTES),
                                StandardCharsets.UTF_8
                                        .newDecoder()
                                        .onMalformedInput(CodingErrorAction.REPLACE)
                                        .onUnmappableCharacter(CodingErrorAction.REPLACE)),
                        MAX_LINE)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                if (s.records >= MAX_RECORDS) {
                    s.truncated = true;
                    break;
                }
                JsonNode n;
                s.lastBad = true;
                try {
                    n = JSON.readTree(line);
                } catch (JsonProcessingException e) {
                    s.badLines++;
                    continue;
                }
                if (n == null || !n.isObject()) {
                    s.badLines++;
                    continue;
                }
                s.lastBad = false;
                s.records++;
                try {
                    s.add(n);
                } catch (RuntimeException e) {
                    s.badLines++; // a record of a known type with fields of the wrong shape
                }
            }
            s.truncated |= Files.size(file) > MAX_BYTES;
            if (s.lastBad && !s.truncated && !endsWithNewline(file)) {
                s.badLines--;
                s.cutLastLine = true;
            }
        } catch (IOException e) {
            s.error("cannot read " + file.getFileName() + ": " + e.getMessage());
        }
        Map<Long, ProbeLog.Allocations> allocations = new LinkedHashMap<>();
        s.sites.forEach((pid, defs) -> allocations.put(
                pid,
                new ProbeLog.Allocations(
                        pid, s.ranks.get(pid), Map.copyOf(defs), List.copyOf(s.samples.getOrDefault(pid, List.of())))));
        s.samples.forEach((pid, samples) -> allocations.computeIfAbsent(
                pid, p -> new ProbeLog.Allocations(p, s.ranks.get(p), Map.of(), List.copyOf(samples))));
        return new ProbeLog(
                phase,
                file.toString(),
                true,
                s.processes,
                s.failures,
                s.ooms,
                s.snapshots,
                allocations,
                s.exits,
                Map.copyOf(s.work),
                List.copyOf(s.errors),
                s.records,
                s.badLines,
                s.cutLastLine,
                s.truncated,
                List.copyOf(s.state.values()),
                s.census,
                s.coverageStops);
    }

    private static boolean endsWithNewline(Path file) throws IOException {
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "r")) {
            if (f.length() == 0) {
                return true;
            }
            f.seek(f.length() - 1);
            int b = f.read();
            return b == '\n' || b == '\r';
        }
    }

    private static final class State {
        final List<ProbeLog.Process> processes = new ArrayList<>();
        final List<ProbeLog.OpFailure> failures = new ArrayList<>();
        final List<ProbeLog.Oom> ooms = new ArrayList<>();
        final List<ProbeLog.OomSnapshot> snapshots = new ArrayList<>();
        final List<ProbeLog.Exit> exits = new ArrayList<>();
        final Map<Long, ProbeLog.Work> work = new LinkedHashMap<>();
        final Map<String, ProbeLog.StateAccess> state = new LinkedHashMap<>();
        final Map<Long, Map<Integer, ProbeLog.Site>> sites = new LinkedHashMap<>();
        final Map<Long, List<ProbeLog.Sample>> samples = new LinkedHashMap<>();
        final Map<Long, String> ranks = new LinkedHashMap<>();
        final Set<String> errors = new LinkedHashSet<>();
        final List<ProbeLog.CensusCount> census = new ArrayList<>();
        final List<ProbeLog.CoverageStop> coverageStops = new ArrayList<>();
        long records;
        long badLines;
        boolean lastBad;
        boolean cutLastLine;
        boolean truncated;

        void error(String e) {
            if (errors.size() < MAX_ERRORS) {
                errors.add(e);
            }
        }

        void add(JsonNode n) {
            long pid = n.path("pid").asLong(0);
            String rank = text(n, "rank");
            if (rank != null) {
                ranks.putIfAbsent(pid, rank);
            }
            double t = n.path("t").asDouble(0);
            switch (n.path("type").asText("")) {
                case "probe" ->
                    processes.add(new ProbeLog.Process(
                            pid,
                            rank,
                            text(n, "mode"),
                            text(n, "torch"),
                            text(n, "python"),
                            t,
                            n.path("ts").isNumber() ? n.get("ts").asDouble() : null,
                            n.path("utcOffset").asInt(0)));
                case "op-failure" -> {
                    if (failures.size() < MAX_FAILURES) {
                        failures.add(failure(n, pid, rank, t));
                    }
                }
                case "site" -> {
                    Map<Integer, ProbeLog.Site> defs = sites.computeIfAbsent(pid, p -> new LinkedHashMap<>());
                    SourceLocation loc = location(n);
                    if (defs.size() < MAX_SITES_PER_PROCESS && loc != null) {
                        int id = n.path("id").asInt();
                        defs.put(id, new ProbeLog.Site(id, loc, stack(n.path("stack"))));
                    }
                }
                case "sites" -> {
                    List<ProbeLog.Sample> list = samples.computeIfAbsent(pid, p -> new ArrayList<>());
                    ProbeLog.Sample sample = sample(n, t);
                    if (list.size() < MAX_SAMPLES_PER_PROCESS) {
                        list.add(sample);
                    } else if (!"periodic".equals(sample.at())) {
                        list.set(list.size() - 1, sample); // the end and the OOM matter more than a middle sample
                    }
                }
                case "oom" ->
                    ooms.add(new ProbeLog.Oom(
                            pid,
                            rank,
                            t,
                            n.path("requested").asLong(-1),
                            n.path("deviceFree").asLong(-1),
                            n.path("deviceAllocated").asLong(-1),
                            location(n.path("site")),
                            stack(n.path("stack"))));
                case "oom-snapshot" ->
                    snapshots.add(new ProbeLog.OomSnapshot(
                            pid,
                            baseName(text(n, "file")),
                            n.path("bytes").asLong(-1),
                            n.path("seconds").asDouble(0),
                            n.hasNonNull("traceEntriesKept")
                                    ? n.get("traceEntriesKept").asLong()
                                    : null));
                case "exit" ->
                    exits.add(new ProbeLog.Exit(
                            pid,
                            n.path("probeSeconds").asDouble(0),
                            n.hasNonNull("watchedCalls") ? n.get("watchedCalls").asLong() : null,
                            n.hasNonNull("samples") ? n.get("samples").asLong() : null));
                case "work" -> work(n, pid);
                case "census" -> census(n, pid);
                case "coverage-stop" -> coverageStop(n, pid);
                case "state" -> state(n, pid);
                case "probe-error" ->
                    error(text(n, "where") + ": " + text(n, "error") + (rank == null ? "" : " (rank " + rank + ")"));
                default -> {
                    // history and future record types: nothing to keep
                }
            }
        }

        /** The census's count as it grew, read by the probe at a step (issue #49). */
        private void census(JsonNode n, long pid) {
            if (census.size() < MAX_CENSUS_COUNTS) {
                census.add(new ProbeLog.CensusCount(
                        pid,
                        n.path("hook").asText(""),
                        n.path("steps").asLong(0),
                        n.path("backward").asLong(0),
                        n.path("distinct").asLong(0)));
            }
        }

        /** Where the sanitizer run's probe ended the job at its coverage stop. */
        private void coverageStop(JsonNode n, long pid) {
            if (coverageStops.size() < MAX_CENSUS_COUNTS) {
                coverageStops.add(new ProbeLog.CoverageStop(
                        pid,
                        n.path("unit").asText(""),
                        n.path("at").asLong(0),
                        n.path("steps").asLong(0),
                        n.path("backward").asLong(0),
                        n.path("synchronized").asBoolean(false),
                        n.path("cudnnBenchmark").asBoolean(false)));
            }
        }

        /** A process's work record, merged into what it said before (the highest step count, the last time). */
        private void work(JsonNode n, long pid) {
            String event = n.path("event").asText("");
            ProbeLog.Work seen = new ProbeLog.Work(
                    pid,
                    "cuda".equals(event) || n.path("cuda").asBoolean(false),
                    count(n, "steps"),
                    count(n, "backward"),
                    n.hasNonNull("allocations") ? n.get("allocations").asLong() : null,
                    n.path("ts").isNumber() ? n.get("ts").asDouble() : null,
                    "exit".equals(event),
                    count(n, "optimizers"),
                    count(n, "loads"),
                    null);
            work.put(pid, work.getOrDefault(pid, ProbeLog.Work.none(pid)).merge(seen));
        }

        private static long count(JsonNode n, String field) {
            return Math.max(0, n.path(field).asLong(0));
        }

        /**
         * A file opened outside the run's copy: kept once per event and path (the first time), bounded; a record
         * without an absolute path or a known event is a bad line.
         */
        private void state(JsonNode n, long pid) {
            String event = n.path("event").asText("");
            String path = text(n, "path");
            if (!("read".equals(event) || "write".equals(event)) || path == null || !path.startsWith("/")) {
                throw new IllegalArgumentException(
                        "a state record needs an event (read or write) and an absolute path");
            }
            String key = event + "\u0000" + path;
            if (state.size() < MAX_STATE && !state.containsKey(key)) {
                String where = text(n, "where");
                state.put(
                        key,
                        new ProbeLog.StateAccess(
                                pid,
                                event,
                                path,
                                where == null ? "other" : where,
                                n.path("ts").isNumber() ? n.get("ts").asDouble() : null));
            }
        }

        private static ProbeLog.OpFailure failure(JsonNode n, long pid, String rank, double t) {
            List<ProbeLog.TensorArg> args = new ArrayList<>();
            for (JsonNode a : n.path("args")) {
                if (args.size() >= MAX_ARGS) {
                    break;
                }
                args.add(new ProbeLog.TensorArg(
                        text(a, "name"),
                        longs(a.path("shape")),
                        text(a, "dtype"),
                        text(a, "device"),
                        a.path("index").asBoolean(false)));
            }
            JsonNode c = n.path("check");
            ProbeLog.IndexCheck check = c.isObject()
                    ? new ProbeLog.IndexCheck(
                            text(c, "name"),
                            text(c, "dtype"),
                            longs(c.path("shape")),
                            optLong(c, "min"),
                            optLong(c, "max"),
                            optLong(c, "size"),
                            text(c, "of"),
                            text(c, "unit"),
                            optLong(c, "ignoreIndex"),
                            c.hasNonNull("outOfRange") ? c.get("outOfRange").asBoolean() : null,
                            text(c, "statsFrom"))
                    : null;
            JsonNode e = n.path("exception");
            return new ProbeLog.OpFailure(
                    pid,
                    rank,
                    t,
                    text(n, "op"),
                    location(n.path("site")),
                    stack(n.path("stack")),
                    text(e, "type"),
                    text(e, "message"),
                    args,
                    check,
                    text(n, "probeError"));
        }

        private static ProbeLog.Sample sample(JsonNode n, double t) {
            List<ProbeLog.SiteBytes> sites = new ArrayList<>();
            for (JsonNode s : n.path("sites")) {
                if (sites.size() >= MAX_SITES_PER_SAMPLE) {
                    break;
                }
                if (s.isArray() && s.size() >= 3) {
                    sites.add(new ProbeLog.SiteBytes(
                            s.get(0).asInt(), s.get(1).asLong(), s.get(2).asLong()));
                }
            }
            return new ProbeLog.Sample(
                    t,
                    n.path("at").asText("periodic"),
                    n.path("allocated").asLong(0),
                    n.path("reserved").asLong(0),
                    n.path("blocks").asLong(0),
                    sites,
                    n.path("cost").asDouble(0));
        }
    }

    static SourceLocation location(JsonNode n) {
        String file = text(n, "file");
        if (file == null) {
            return null;
        }
        return new SourceLocation(file, n.path("line").asInt(0), text(n, "function"), text(n, "code"));
    }

    private static List<SourceLocation> stack(JsonNode n) {
        List<SourceLocation> out = new ArrayList<>();
        for (JsonNode f : n) {
            SourceLocation l = location(f);
            if (l != null && out.size() < MAX_FRAMES) {
                out.add(l);
            }
        }
        return out;
    }

    private static List<Long> longs(JsonNode n) {
        List<Long> out = new ArrayList<>();
        for (JsonNode x : n) {
            if (out.size() >= 16) {
                break;
            }
            out.add(x.asLong());
        }
        return out;
    }

    private static Long optLong(JsonNode n, String f) {
        JsonNode v = n.get(f);
        return v == null || !v.isNumber() ? null : v.asLong();
    }

    static String text(JsonNode n, String f) {
        JsonNode v = n == null ? null : n.get(f);
        if (v == null || v.isNull()) {
            return null;
        }
        String s = v.isValueNode() ? v.asText() : v.toString();
        return s.length() > 2000 ? s.substring(0, 2000) + "..." : s;
    }

    /** Only a file name: the snapshot lies beside probe.jsonl, never elsewhere. */
    private static String baseName(String f) {
        if (f == null) {
            return null;
        }
        String b = f.substring(Math.max(f.lastIndexOf('/'), f.lastIndexOf('\\')) + 1);
        return b.isEmpty() || b.equals("..") || b.equals(".") ? null : b;
    }

    /** Reads at most {@code limit} bytes. */
    private static final class LimitedStream extends java.io.FilterInputStream {
        private long left;

        LimitedStream(InputStream in, long limit) {
            super(in);
            this.left = limit;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = super.read();
            if (b >= 0) {
                left--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int r = super.read(b, off, (int) Math.min(len, left));
            if (r > 0) {
                left -= r;
            }
            return r;
        }
    }
}
