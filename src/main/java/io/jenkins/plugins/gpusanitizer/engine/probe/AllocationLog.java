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
import java.util.Map.Entry;
import java.util.TreeMap;

/**
 * The sanitizer run's allocation record, from its {@code probe.jsonl} ({@code alloc-site}, {@code alloc},
 * {@code alloc-shape} lines, docs/probe.md): for each process, the last allocation written at each address.
 * The probe writes a line only when an address gets a new size or site, so the last line at an address is the
 * allocation that held it when the job stopped writing. Read only when a defect has an address to explain;
 * bounded, and a line cut by the job's death or not JSON is skipped.
 */
public final class AllocationLog {
    static final int MAX_LINE = 16 * 1024;
    static final long MAX_LINES = 1_000_000;

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /** One allocation as the probe recorded it. */
    public record Allocation(int pid, long base, long size, SourceLocation site, SourceLocation caller, String shape) {
        public boolean contains(long address) {
            return size > 0
                    && Long.compareUnsigned(address, base) >= 0
                    && Long.compareUnsigned(address - base, size) < 0;
        }
    }

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

    /** The recorded allocations whose bytes include {@code address}, one per process at most. */
    public List<Allocation> containing(long address) {
        List<Allocation> out = new ArrayList<>();
        for (TreeMap<Long, Allocation> m : byPid.values()) {
            // addresses are unsigned; user-space device addresses stay below 2^63, so signed order is theirs
            Entry<Long, Allocation> e = m.floorEntry(address);
            if (e != null && e.getValue().contains(address)) {
                out.add(e.getValue());
            }
        }
        return out;
    }

    public static AllocationLog read(Path file) {
        if (file == null || !Files.isRegularFile(file)) {
            return new AllocationLog(Map.of(), false);
        }
        Map<String, SourceLocation[]> sites = new HashMap<>();
        Map<Integer, TreeMap<Long, Allocation>> byPid = new HashMap<>();
        Map<String, String> shapes = new HashMap<>();
        boolean present = false;
        try (BoundedLineReader in = new BoundedLineReader(
                new InputStreamReader(
                        Files.newInputStream(file),
                        StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)),
                MAX_LINE)) {
            String line;
            long n = 0;
            while ((line = in.readLine()) != null && n++ < MAX_LINES) {
                if (!line.contains("\"type\":\"alloc")) {
                    continue; // the other records: never parsed here
                }
                JsonNode r;
                try {
                    r = JSON.readTree(line);
                } catch (IOException e) {
                    continue;
                }
                int pid = r.path("pid").asInt();
                switch (r.path("type").asText()) {
                    case "alloc-site" ->
                        sites.put(
                                pid + ":" + r.path("id").asInt(),
                                new SourceLocation[] {location(r.get("site")), location(r.get("caller"))});
                    case "alloc" -> {
                        present = true;
                        long base = address(r.path("ptr").asText());
                        if (base != 0) {
                            SourceLocation[] s = r.path("site").isInt()
                                    ? sites.get(pid + ":" + r.path("site").asInt())
                                    : null;
                            byPid.computeIfAbsent(pid, p -> new TreeMap<>())
                                    .put(
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
                    case "alloc-shape" -> shape(r, pid, shapes);
                    default -> {}
                }
            }
        } catch (IOException | RuntimeException e) {
            // what was read stands: the record is evidence, its absence is said by the caller
        }
        shapes.forEach((key, shape) -> {
            int colon = key.indexOf(':');
            TreeMap<Long, Allocation> m = byPid.get(Integer.parseInt(key.substring(0, colon)));
            Long base = Long.parseLong(key.substring(colon + 1));
            Allocation a = m == null ? null : m.get(base);
            if (a != null) {
                m.put(base, new Allocation(a.pid(), a.base(), a.size(), a.site(), a.caller(), shape));
            }
        });
        return new AllocationLog(byPid, present);
    }

    /** A tensor's own shape beats a view's: the first non-view record at an address wins. */
    private static void shape(JsonNode r, int pid, Map<String, String> shapes) {
        long base = address(r.path("ptr").asText());
        if (base == 0) {
            return;
        }
        StringBuilder s = new StringBuilder();
        if ("cupy".equals(r.path("kind").asText())) {
            s.append("CuPy ");
        }
        s.append(r.path("dtype").asText("?")).append(" [");
        JsonNode dims = r.path("shape");
        for (int i = 0; i < dims.size() && i < 8; i++) {
            s.append(i == 0 ? "" : ", ").append(dims.get(i).asLong());
        }
        s.append(dims.size() > 8 ? ", ...]" : "]");
        String key = pid + ":" + base;
        boolean view = r.path("view").asBoolean(false);
        if (!shapes.containsKey(key) || !view && shapes.get(key).endsWith(" (a view)")) {
            shapes.put(key, view ? s + " (a view)" : s.toString());
        }
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
