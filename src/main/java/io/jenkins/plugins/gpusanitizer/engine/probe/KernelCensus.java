package io.jenkins.plugins.gpusanitizer.engine.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The kernels a plain run launched (issue #49), read from the blocking run's {@code census/census-PID.jsonl} files that
 * the probe's CUPTI injection writes (gpu_sanitize_census.c, docs/probe.md): each distinct kernel by its mangled name,
 * the index of its first launch in its process and, where the process reached its exit, how often it was launched.
 *
 * <p>Each process counts two API domains; a runtime launch reaches the driver's callback too (CUDA 12, 13), and
 * cuBLASLt and Triton launch through the driver only, so each file is read in the domain that saw more kernels. A line
 * that is not JSON (cut by a kill) is skipped and said. A process killed before its exit keeps its first launches:
 * its kernels are known, their counts not ({@link #complete()} false).
 *
 * @param kernels   one per distinct name, by first launch (the earliest over the processes)
 * @param processes the census files read
 * @param complete  every process wrote its counts at its exit
 * @param problems  what could not be read, one sentence each
 * @param distinctAtExit each process's count at its exit of distinct (domain, kernel) pairs, the census's own
 *                  {@code total} line: the unit of the probe's step-by-step {@code census} records
 *                  ({@link ProbeLog.CensusCount}); a process killed before its exit has none
 */
public record KernelCensus(
        List<Kernel> kernels, int processes, boolean complete, List<String> problems, Map<Long, Long> distinctAtExit) {
    static final int MAX_FILES = 256;
    static final long MAX_LINES = 2_000_000;
    private static final Pattern FILE = Pattern.compile("census-(\\d{1,9})\\.jsonl");
    private static final ObjectMapper JSON = JsonMapper.builder().build();
    /** Launches the census cannot split into kernels: a CUDA graph's, and a launch without a symbol name. */
    public static final List<String> NOT_KERNELS = List.of("(graph)", "(unnamed)");

    /**
     * One distinct kernel.
     *
     * @param launches how often it was launched, over the processes that reached their exit; null when none did
     * @param first    its first launch: how many launches of its process came before it
     */
    public record Kernel(String name, long first, Long launches) {}

    /** No census: the folder is missing or holds no census file. */
    public boolean isEmpty() {
        return processes == 0;
    }

    /** The census in a blocking run's {@code census} folder; an empty census where there is none. */
    public static KernelCensus read(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(p -> FILE.matcher(String.valueOf(p.getFileName())).matches())
                        .sorted()
                        .limit(MAX_FILES)
                        .forEach(files::add);
            }
        }
        Map<String, Kernel> merged = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        Map<Long, Long> totals = new LinkedHashMap<>();
        boolean complete = !files.isEmpty();
        for (Path f : files) {
            ProcessCensus p = ProcessCensus.read(f, problems);
            complete &= p.complete;
            if (p.pid() != null) {
                totals.put(p.pid(), p.distinct());
            }
            for (Kernel k : p.kernels()) {
                merged.merge(k.name(), k, KernelCensus::merge);
            }
        }
        List<Kernel> kernels = new ArrayList<>(merged.values());
        kernels.sort(Comparator.comparingLong(Kernel::first).thenComparing(Kernel::name));
        return new KernelCensus(
                List.copyOf(kernels), files.size(), complete, List.copyOf(problems), Map.copyOf(totals));
    }

    private static Kernel merge(Kernel a, Kernel b) {
        Long launches = a.launches() == null
                ? b.launches()
                : b.launches() == null ? a.launches() : (Long) (a.launches() + b.launches());
        return new Kernel(a.name(), Math.min(a.first(), b.first()), launches);
    }

    /**
     * The census file of one process, in the domain that saw more kernels; its pid and count of distinct pairs from its
     * {@code total} line, null and 0 where it has none.
     */
    private record ProcessCensus(List<Kernel> kernels, boolean complete, Long pid, long distinct) {
        static ProcessCensus read(Path f, List<String> problems) throws IOException {
            Map<String, Map<String, Long>> first = new LinkedHashMap<>();
            Map<String, Map<String, Long>> launches = new LinkedHashMap<>();
            boolean total = false;
            Long pid = null;
            long distinct = 0;
            int bad = 0;
            long n = 0;
            try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                for (String line = r.readLine(); line != null && n < MAX_LINES; line = r.readLine(), n++) {
                    JsonNode o;
                    try {
                        o = JSON.readTree(line);
                    } catch (IOException e) {
                        bad++;
                        continue;
                    }
                    String type = o.path("type").asText();
                    String domain = o.path("domain").asText();
                    String name = o.path("name").asText(null);
                    if (type.equals("first") && name != null) {
                        first.computeIfAbsent(domain, d -> new LinkedHashMap<>())
                                .putIfAbsent(name, o.path("index").asLong());
                    } else if (type.equals("kernel") && name != null) {
                        first.computeIfAbsent(domain, d -> new LinkedHashMap<>())
                                .putIfAbsent(name, o.path("first").asLong());
                        launches.computeIfAbsent(domain, d -> new LinkedHashMap<>())
                                .put(name, o.path("launches").asLong());
                    } else if (type.equals("total")) {
                        total = true;
                        pid = o.path("pid").asLong();
                        distinct = o.path("distinct").asLong();
                    } else if (type.equals("error")) {
                        problems.add(f.getFileName() + ": " + o.path("message").asText());
                    }
                }
            }
            if (bad > 0) {
                problems.add(f.getFileName() + ": " + bad + " line(s) not JSON, skipped (a process cut mid-line)");
            }
            String domain = first.entrySet().stream()
                    .max(Comparator.comparingInt((Map.Entry<String, Map<String, Long>> e) ->
                                    e.getValue().size())
                            .thenComparing(e -> e.getKey().equals("driver")))
                    .map(Map.Entry::getKey)
                    .orElse("driver");
            Map<String, Long> counts = launches.getOrDefault(domain, Map.of());
            boolean exited = total;
            List<Kernel> kernels = new ArrayList<>();
            first.getOrDefault(domain, Map.of())
                    .forEach((name, index) -> kernels.add(new Kernel(name, index, exited ? counts.get(name) : null)));
            return new ProcessCensus(kernels, exited, pid, distinct);
        }
    }
}
