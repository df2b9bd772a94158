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
 * The sanitizer run's allocation record, from the probe's {@code alloc-PID.jsonl} files ({@code alloc-site},
 * {@code alloc}, {@code alloc-shape} lines, docs/probe.md): for each process, the last allocation written at each
 * address.
 * The probe writes a line only when an address gets a new size or site, so the last line at an address is the
 * allocation that held it when the job stopped writing. Read only when a defect has an address to explain;
 * bounded, and a line cut by the job's death or not JSON is skipped.
 */
public final class AllocationLog {
    static final int MAX_LINE = 16 * 1024;
    static final long MAX_LINES = 1_000_000; // per file: the probe rotates its files at 50,000 lines
    static final int MAX_FILES = 256;
    private static final Pattern FILE = Pattern.compile("alloc-(\\d{1,9})(\\.prev)?\\.jsonl");

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /** One allocation as the probe recorded it. */
    public record Allocation(int pid, long base, long size, SourceLocation site, SourceLocation caller, String shape) {}

    private final Map<Integer, TreeMap<Long, Allocation>> byPid;
    private final boolean present;

    private AllocationLog(Map<Integer, TreeMap<Long, Allocation>> byPid, boolean present) {
        this.byPid = byPid;
        this.present = present;
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
                    present |= readFile(f, Integer.parseInt(m.group(1)), byPid);
                }
            }
            for (Path f : files) {
                Matcher m = FILE.matcher(String.valueOf(f.getFileName()));
                if (m.matches() && m.group(2) == null) {
                    present |= readFile(f, Integer.parseInt(m.group(1)), byPid);
                }
            }
        }
        return new AllocationLog(byPid, present);
    }

    /** One process's file into its map: the last line at an address wins. True when it held an allocation. */
    private static boolean readFile(Path file, int pid, Map<Integer, TreeMap<Long, Allocation>> byPid) {
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
                switch (r.path("type").asText()) {
                    case "alloc-site" ->
                        sites.put(
                                r.path("id").asInt(),
                                new SourceLocation[] {location(r.get("site")), location(r.get("caller"))});
                    case "alloc" -> {
                        long base = address(r.path("ptr").asText());
                        if (base != 0) {
                            present = true;
                            SourceLocation[] s = r.path("site").isInt()
                                    ? sites.get(r.path("site").asInt())
                                    : null;
                            m.put(
                                    base,
                                    new Allocation(
                                            pid,
                                            base,
                                            r.path("size").asLong(-1),
                                            s == null ? null : s[0],
                                            s == null ? null : s[1],
                                            null));
                        }
                    }
                    case "alloc-shape" -> {
                        long base = address(r.path("ptr").asText());
                        Allocation a = m.get(base);
                        if (a != null) {
                            m.put(base, new Allocation(pid, base, a.size(), a.site(), a.caller(), shape(r)));
                        }
                    }
                    default -> {}
                }
            }
        } catch (IOException | RuntimeException e) {
            // what was read stands: the record is evidence, its absence is said by the caller
        }
        return present;
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
