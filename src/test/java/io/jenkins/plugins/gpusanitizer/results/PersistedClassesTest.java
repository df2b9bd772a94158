package io.jenkins.plugins.gpusanitizer.results;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.steps.GpuSanitizeStep;
import io.jenkins.plugins.gpusanitizer.steps.SanitizerTool;
import io.jenkins.plugins.gpusanitizer.steps.Suppression;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * JEP-200: what this plugin leaves in build.xml (XStream) and sends through remoting passes core's
 * {@code ClassFilterImpl}: a JRE class only when {@code whitelisted-classes.txt} of Jenkins 2.555.3 names it
 * (its java.* lines are test data: jenkins/whitelisted-classes-2.555.3.txt); arrays, enums and throwables
 * always; classes of plugins (this one) by their location. The walk goes through every non-transient field of
 * the real objects, built from the reports of recorded H200 runs, into collections, maps and this plugin's
 * own classes.
 */
class PersistedClassesTest {
    static final String PLUGIN = "io.jenkins.plugins.gpusanitizer.";

    static Set<String> whitelist() throws IOException {
        try (InputStream in =
                PersistedClassesTest.class.getResourceAsStream("/jenkins/whitelisted-classes-2.555.3.txt")) {
            Set<String> names = new TreeSet<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    names.add(line.trim());
                }
            }
            return names;
        }
    }

    /** Every value's class the filter would reject, as "path: class", reached from {@code root}. */
    static List<String> rejected(Object root) throws IOException {
        List<String> out = new ArrayList<>();
        walk(root, root.getClass().getSimpleName(), whitelist(), out, new IdentityHashMap<>());
        return out;
    }

    private static void walk(
            Object value, String path, Set<String> allowed, List<String> out, Map<Object, Object> seen) {
        if (value == null || seen.put(value, value) != null) {
            return;
        }
        Class<?> c = value.getClass();
        if (c.isArray()) {
            for (int i = 0; i < Array.getLength(value); i++) {
                walk(Array.get(value, i), path + "[" + i + "]", allowed, out, seen);
            }
            return;
        }
        if (value instanceof Enum<?> || value instanceof Throwable) {
            return;
        }
        if (isJre(c)) {
            if (!allowed.contains(c.getName())) {
                out.add(path + ": " + c.getName());
                return;
            }
            if (value instanceof Collection<?> collection) {
                int i = 0;
                for (Object element : collection) {
                    walk(element, path + "[" + i++ + "]", allowed, out, seen);
                }
            } else if (value instanceof Map<?, ?> map) {
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    walk(e.getKey(), path + ".key", allowed, out, seen);
                    walk(e.getValue(), path + "[" + e.getKey() + "]", allowed, out, seen);
                }
            }
            return;
        }
        if (!c.getName().startsWith(PLUGIN)) {
            return; // core or another plugin: the filter admits it by its location, its fields are not ours
        }
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m)
                        || Modifier.isTransient(m)
                        || f.getType().isPrimitive()) {
                    continue;
                }
                f.setAccessible(true);
                try {
                    walk(f.get(value), path + "." + f.getName(), allowed, out, seen);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** A class of the Java runtime: no code source, so the filter goes by the whitelist. */
    private static boolean isJre(Class<?> c) {
        return c.getClassLoader() == null
                || c.getName().startsWith("java.")
                || c.getName().startsWith("javax.");
    }

    static List<Path> recordedReports() throws IOException {
        List<Path> reports = new ArrayList<>();
        for (String capture : List.of("h200-2026-12-02", "h200-2026-12-03")) {
            try (Stream<Path> runs = Files.list(Records.unpacked(capture))) {
                runs.map(run -> run.resolve("report.json"))
                        .filter(Files::isRegularFile)
                        .sorted()
                        .forEach(reports::add);
            }
        }
        return reports;
    }

    @Test
    void theWhitelistIsCoresAndRejectsTheJdksImmutableMaps() throws IOException {
        Set<String> allowed = whitelist();
        assertThat(allowed)
                .contains("java.util.TreeMap", "java.util.ArrayList", "java.util.ImmutableCollections$ListN")
                .doesNotContain("java.util.ImmutableCollections$MapN", "java.util.ImmutableCollections$Map1")
                .allMatch(name -> name.startsWith("java."));
        // the walk reaches a field's map and names the class the filter refuses
        assertThat(rejected(new AgentHolder(Map.of("memcheck", 1))))
                .containsExactly("AgentHolder.byTool: java.util.ImmutableCollections$Map1");
        assertThat(rejected(new AgentHolder(Map.of())))
                .containsExactly("AgentHolder.byTool: java.util.ImmutableCollections$MapN");
        assertThat(rejected(new AgentHolder(new java.util.TreeMap<>(Map.of("memcheck", 1)))))
                .isEmpty();
    }

    /** A plugin class with one map field (the rule for this plugin's classes applies to it). */
    record AgentHolder(Map<String, Integer> byTool) {}

    @Test
    void theBuildActionOfEveryRecordedRunHoldsOnlyWhitelistedClasses() throws IOException {
        List<Path> reports = recordedReports();
        assertThat(reports).hasSizeGreaterThan(20);
        for (Path file : reports) {
            Report report = ReportJson.read(file);
            AgentSummary summary =
                    Summaries.masked(Summaries.of(report, file.getParent().toString()), s -> s);
            assertThat(rejected(summary)).as("summary of %s", file).isEmpty();
            GpuSanitizeBuildAction action = new GpuSanitizeBuildAction("gpu-sanitizer", "GPU Sanitizer", summary);
            assertThat(rejected(action)).as("build action of %s", file).isEmpty();
        }
    }

    @Test
    void aSummaryWithoutPerToolCountsOrEvidenceStillPersists() throws IOException {
        Report far = ReportJson.read(Records.unpacked("h200-2026-12-02/far/report.json"));
        AgentSummary s = Summaries.of(far, "/tmp/h200-runs/far");
        AgentSummary bare = s.copy().defectsByTool(null).evidence(null).build();
        GpuSanitizeBuildAction action = new GpuSanitizeBuildAction("gpu-sanitizer", "GPU Sanitizer", bare);
        assertThat(action.getDefectsByTool()).isEmpty();
        assertThat(action.getEvidence()).isEmpty();
        assertThat(rejected(action)).isEmpty();
        // a summary whose per-tool counts came as the JDK's immutable map (e.g. from a caller's Map.of)
        AgentSummary immutable = s.copy()
                .defectsByTool(Map.of("memcheck", 1))
                .aborted(false)
                .evidence(List.of("failing operator: x"))
                .build();
        assertThat(rejected(immutable)).isEmpty();
        assertThat(rejected(new GpuSanitizeBuildAction("gpu-sanitizer", "GPU Sanitizer", immutable)))
                .isEmpty();
    }

    @Test
    void theStepAndItsNestedDescribablesHoldOnlyWhitelistedClasses() throws IOException {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 examples/triton_job.py --steps 3");
        SanitizerTool memcheck = new SanitizerTool("memcheck");
        memcheck.setAction("fail");
        Suppression rule = new Suppression();
        rule.setTool("memcheck");
        rule.setKind("leak");
        rule.setReason("known");
        // what a caller hands the setters may be the JDK's immutable lists: the step keeps its own copy
        step.setSanitizerTools(List.of(memcheck, new SanitizerTool("racecheck")));
        step.setSuppressionRules(List.of(rule));
        step.setRegressionSeconds(12.5);
        assertThat(rejected(step)).isEmpty();
        assertThat(step.getSanitizerTools()).hasSize(2);
    }
}
