package io.jenkins.plugins.gpusanitizer.engine.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.jenkins.plugins.gpusanitizer.engine.model.NearestAllocation;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The sanitizer run's allocation record, from the probe's {@code alloc-PID.jsonl} files ({@code alloc-record},
 * {@code alloc-site}, {@code alloc}, {@code free}, {@code alloc-shape} lines, docs/probe.md): for each process, the
 * last allocation written at each address, and whether it was freed since (and where).
 * The probe writes a line only when an address gets a new size or site or is freed, so the last line at an address
 * is the allocation that held it when the job stopped writing. Read only when a defect has an address to explain;
 * bounded, and a line cut by the job's death or not JSON is skipped.
 *
 * <p>The padding: under memcheck's {@code --padding} the driver counts the guard zone in each allocation's range,
 * so a recorded size is memcheck's plus that padding. It is known from the record's own {@code alloc-record} line
 * (the runner passes it to the probe), else from the phase's {@code command.txt} (gate runs before that line), else
 * from the shapes the probe saw (a tensor that fills its allocation is {@code numel x itemsize} bytes: the smallest
 * difference two of them share); else it is not known.
 */
public final class AllocationLog {
    static final int MAX_LINE = 16 * 1024;
    static final long MAX_LINES = 1_000_000; // per file: the probe rotates its files at 50,000 lines
    static final int MAX_FILES = 256;
    private static final Pattern FILE = Pattern.compile("alloc-(\\d{1,9})(\\.prev)?\\.jsonl");

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private static final Pattern PADDING = Pattern.compile("(?:^| )--padding[ =](\\d{1,12})(?= |$)");

    /**
     * One allocation as the probe recorded it.
     *
     * @param size        the driver's range (memcheck's size plus its padding), or -1 when the probe had no size
     * @param shapeBytes  {@code numel x itemsize} of the shape, or -1 when its dtype's size is not known
     * @param freed       whether a {@code free} line followed it: not live when the job stopped writing
     * @param freedAt     the job's line that last freed this block (and its caller), kept when the same line
     *                    allocated it again at the same address; null when never freed or no Python frame was there
     * @param freedOnce   whether the record saw this block freed at all
     */
    public record Allocation(
            int pid,
            long base,
            long size,
            SourceLocation site,
            SourceLocation caller,
            String shape,
            long shapeBytes,
            boolean freed,
            SourceLocation freedAt,
            SourceLocation freedCaller,
            boolean freedOnce) {
        Allocation(int pid, long base, long size, SourceLocation site, SourceLocation caller) {
            this(pid, base, size, site, caller, null, -1, false, null, null, false);
        }

        Allocation withShape(String shape, long bytes) {
            return new Allocation(pid, base, size, site, caller, shape, bytes, freed, freedAt, freedCaller, freedOnce);
        }

        Allocation freedAt(SourceLocation at, SourceLocation atCaller) {
            return new Allocation(pid, base, size, site, caller, shape, shapeBytes, true, at, atCaller, true);
        }

        /** This allocation, made again at the same address: the same buffer keeps the line that freed it before. */
        Allocation again(Allocation previous) {
            if (previous == null
                    || !previous.freedOnce()
                    || previous.size() != size
                    || !java.util.Objects.equals(previous.site(), site)) {
                return this;
            }
            return new Allocation(
                    pid,
                    base,
                    size,
                    site,
                    caller,
                    shape,
                    shapeBytes,
                    false,
                    previous.freedAt(),
                    previous.freedCaller(),
                    true);
        }
    }

    /** What the record's own lines say of it. */
    private static final class Header {
        Long padding;
        boolean paddingDisagrees;
        boolean frees;
        final List<Long> shapeDifferences = new ArrayList<>();
    }

    private final Map<Integer, TreeMap<Long, Allocation>> byPid;
    private final boolean present;
    private final Long padding;
    private final String paddingFrom;
    private final boolean frees;

    private AllocationLog(
            Map<Integer, TreeMap<Long, Allocation>> byPid,
            boolean present,
            Long padding,
            String paddingFrom,
            boolean frees) {
        this.byPid = byPid;
        this.present = present;
        this.padding = padding;
        this.paddingFrom = paddingFrom;
        this.frees = frees;
    }

    /** memcheck's --padding that the recorded sizes count, or null when not known. */
    public Long padding() {
        return padding;
    }

    /** Where {@link #padding()} comes from ({@code record}, {@code command}, {@code shapes}), or null. */
    public String paddingFrom() {
        return paddingFrom;
    }

    /** Whether the record holds frees: without them, an allocation's last line does not say it was still live. */
    public boolean recordsFrees() {
        return frees;
    }

    /**
     * A live allocation (not freed) of any process whose range, padding left out, holds {@code address}; null when
     * none does. Looks at the 64 allocations below the address at most: live allocations do not overlap.
     */
    public Allocation liveCovering(long address) {
        long guard = padding == null ? 0 : padding;
        for (TreeMap<Long, Allocation> m : byPid.values()) {
            int looked = 0;
            for (Allocation a : m.headMap(address, true).descendingMap().values()) {
                if (looked++ >= 64) {
                    break;
                }
                if (!a.freed() && a.size() > 0 && Long.compareUnsigned(address - a.base(), a.size() - guard) < 0) {
                    return a;
                }
            }
        }
        return null;
    }

    /** Whether the probe wrote an allocation record at all (off, or the caching allocator on: none). */
    public boolean present() {
        return present;
    }

    /** The allocations whose first byte is {@code base}, one per process that recorded one. */
    public List<Allocation> at(long base) {
        List<Allocation> out = new ArrayList<>();
        for (TreeMap<Long, Allocation> m : byPid.values()) {
            Allocation a = m.get(base);
            if (a != null) {
                out.add(a);
            }
        }
        return out;
    }

    /**
     * The record of a phase: every {@code alloc-PID.prev.jsonl}, then {@code alloc-PID.jsonl} in {@code phaseDir}
     * (the probe rotates a full file to {@code .prev} and starts the new one with the allocations still live).
     */
    public static AllocationLog read(Path phaseDir) {
        Map<Integer, TreeMap<Long, Allocation>> byPid = new HashMap<>();
        Header header = new Header();
        boolean present = false;
        if (phaseDir != null && Files.isDirectory(phaseDir)) {
            List<Path> files = new ArrayList<>();
            try (Stream<Path> s = Files.list(phaseDir)) {
                s.filter(p -> FILE.matcher(String.valueOf(p.getFileName())).matches())
                        .sorted()
                        .limit(MAX_FILES)
                        .forEach(files::add);
            } catch (IOException | RuntimeException e) {
                // no listing: no record
            }
            for (Path f : files) {
                Matcher m = FILE.matcher(String.valueOf(f.getFileName()));
                if (m.matches() && m.group(2) != null) {
                    present |= readFile(f, Integer.parseInt(m.group(1)), byPid, header);
                }
            }
            for (Path f : files) {
                Matcher m = FILE.matcher(String.valueOf(f.getFileName()));
                if (m.matches() && m.group(2) == null) {
                    present |= readFile(f, Integer.parseInt(m.group(1)), byPid, header);
                }
            }
        }
        Long padding = header.paddingDisagrees ? null : header.padding;
        String from = padding == null ? null : "record";
        if (padding == null && !header.paddingDisagrees && present) {
            padding = commandPadding(phaseDir);
            from = padding == null ? null : "command";
        }
        if (padding == null && !header.paddingDisagrees && present) {
            padding = shapesPadding(header.shapeDifferences);
            from = padding == null ? null : "shapes";
        }
        return new AllocationLog(byPid, present, padding, from, header.frees);
    }

    /**
     * The {@code --padding} of the sanitizer command in the phase's {@code command.txt} (its first line: the
     * command as run), the first one: the runner's, before the job's own arguments; 0 when the command has none (memcheck's default); null without the file.
     */
    static Long commandPadding(Path phaseDir) {
        Path command = phaseDir.resolve("command.txt");
        if (!Files.isRegularFile(command)) {
            return null;
        }
        try (BoundedLineReader in = new BoundedLineReader(Files.newBufferedReader(command), MAX_LINE * 4)) {
            String first = in.readLine();
            if (first == null || !first.contains("compute-sanitizer")) {
                return null;
            }
            Matcher m = PADDING.matcher(first);
            return m.find() ? Long.parseLong(m.group(1)) : 0L;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The padding the shapes show: for a tensor that fills its allocation, recorded size minus {@code numel x
     * itemsize} is the padding exactly; a view that fills part of it shows more. So the smallest non-negative
     * difference, when at least two allocations share it.
     */
    static Long shapesPadding(List<Long> differences) {
        Map<Long, Integer> counts = new TreeMap<>();
        for (Long d : differences) {
            if (d >= 0) {
                counts.merge(d, 1, Integer::sum);
            }
        }
        for (Map.Entry<Long, Integer> e : counts.entrySet()) {
            return e.getValue() >= 2 ? e.getKey() : null;
        }
        return null;
    }

    /** One process's file into its map: the last line at an address wins. True when it held an allocation. */
    private static boolean readFile(Path file, int pid, Map<Integer, TreeMap<Long, Allocation>> byPid, Header header) {
        Map<Integer, SourceLocation[]> sites = new HashMap<>();
        TreeMap<Long, Allocation> m = byPid.computeIfAbsent(pid, p -> new TreeMap<>());
        boolean present = false;
        try (BoundedLineReader in = new BoundedLineReader(
                new InputStreamReader(
                        Files.newInputStream(file),
                        StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)),
                MAX_LINE)) {
            String line;
            long n = 0;
            while ((line = in.readLine()) != null && n++ < MAX_LINES) {
                JsonNode r;
                try {
                    r = JSON.readTree(line);
                } catch (IOException e) {
                    continue; // a line cut by the job's death
                }
                if (r == null) {
                    continue;
                }
                present |= record(r, pid, m, sites, header);
            }
        } catch (IOException | RuntimeException e) {
            // what was read stands: the record is evidence, its absence is said by the caller
        }
        return present;
    }

    /** One line of a process's file into its map; true when it is an allocation. */
    private static boolean record(
            JsonNode r, int pid, TreeMap<Long, Allocation> m, Map<Integer, SourceLocation[]> sites, Header header) {
        switch (r.path("type").asText()) {
            case "alloc-record" -> {
                header.frees |= r.path("frees").asBoolean(false);
                if (r.path("padding").canConvertToLong()) {
                    long p = r.path("padding").asLong();
                    header.paddingDisagrees |= header.padding != null && header.padding != p;
                    header.padding = p;
                }
            }
            case "alloc-site" ->
                sites.put(r.path("id").asInt(), new SourceLocation[] {location(r.get("site")), location(r.get("caller"))
                });
            case "alloc" -> {
                long base = address(r.path("ptr").asText());
                if (base != 0) {
                    SourceLocation[] s =
                            r.path("site").isInt() ? sites.get(r.path("site").asInt()) : null;
                    m.put(
                            base,
                            new Allocation(
                                            pid,
                                            base,
                                            r.path("size").canConvertToLong()
                                                    ? r.path("size").asLong()
                                                    : -1,
                                            s == null ? null : s[0],
                                            s == null ? null : s[1])
                                    .again(m.get(base)));
                }
            }
            case "free" -> {
                long base = address(r.path("ptr").asText());
                Allocation a = m.get(base);
                if (a != null && !a.freed()) {
                    SourceLocation[] s =
                            r.path("site").isInt() ? sites.get(r.path("site").asInt()) : null;
                    m.put(base, a.freedAt(s == null ? null : s[0], s == null ? null : s[1]));
                }
            }
            case "alloc-shape" -> {
                long base = address(r.path("ptr").asText());
                Allocation a = m.get(base);
                if (a != null) {
                    long bytes = shapeBytes(r);
                    m.put(base, a.withShape(shape(r), bytes));
                    if (bytes >= 0 && a.size() > 0) {
                        header.shapeDifferences.add(a.size() - bytes);
                    }
                }
            }
            default -> {}
        }
        return "alloc".equals(r.path("type").asText()) && address(r.path("ptr").asText()) != 0;
    }

    /** {@code float32 [1600]}; a CuPy array's {@code CuPy float32 [64, 128]}. */
    private static String shape(JsonNode r) {
        StringBuilder s = new StringBuilder();
        if ("cupy".equals(r.path("kind").asText())) {
            s.append("CuPy ");
        }
        s.append(r.path("dtype").asText("?")).append(" [");
        JsonNode dims = r.path("shape");
        for (int i = 0; i < dims.size() && i < 8; i++) {
            s.append(i == 0 ? "" : ", ").append(dims.get(i).asLong());
        }
        return s.append(dims.size() > 8 ? ", ...]" : "]").toString();
    }

    /** {@code numel x itemsize}, or -1 when the dtype's size is not known or the shape is not a list of sizes. */
    static long shapeBytes(JsonNode r) {
        long itemsize = itemsize(r.path("dtype").asText(""));
        JsonNode dims = r.path("shape");
        if (itemsize <= 0 || !dims.isArray()) {
            return -1;
        }
        long n = itemsize;
        for (JsonNode d : dims) {
            if (!d.canConvertToLong() || d.asLong() < 0) {
                return -1;
            }
            try {
                n = Math.multiplyExact(n, d.asLong());
            } catch (ArithmeticException e) {
                return -1;
            }
        }
        return n;
    }

    /** Bytes per element of a torch (or NumPy/CuPy) dtype name; 0 when not known. */
    static long itemsize(String dtype) {
        return switch (dtype) {
            case "bool", "int8", "uint8", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz" -> 1;
            case "int16", "uint16", "float16", "half", "bfloat16" -> 2;
            case "int32", "uint32", "float32", "float", "int", "complex32" -> 4;
            case "int64", "uint64", "float64", "double", "long", "complex64" -> 8;
            case "complex128" -> 16;
            default -> 0;
        };
    }

    private static long address(String hex) {
        try {
            return NearestAllocation.hex(hex);
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static SourceLocation location(JsonNode n) {
        if (n == null || !n.hasNonNull("file") || !n.path("line").isInt()) {
            return null;
        }
        return new SourceLocation(
                n.get("file").asText(),
                n.get("line").asInt(),
                n.hasNonNull("function") ? n.get("function").asText() : null,
                n.hasNonNull("code") ? n.get("code").asText() : null);
    }
}
