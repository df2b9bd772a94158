package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner of issue #27 on the H200 (examples/h200/capture-2026-12-05.sh, records/h200-2026-12-05-{a,b}.zip.xz, the
 * CLI at 499e0ef): seven example jobs, one buggy. The clean ones PASS and say nothing above "info" but what is true of
 * them; the Triton job FAILs at its kernel's line; every phase's supervisor, the environment check's too, ran as a
 * child subreaper through perl. Each run directory is judged again by today's {@code analyze --run-dir}.
 */
class H200Record1205Test {
    private static final String RECORD = "h200-2026-12-05-";

    /** What a clean job's report may say above "info": true of cudagraph (its capture rerun with the cache on). */
    private static final Set<String> TRUE_OF_A_CLEAN_JOB = Set.of("capture-conflict", "caching-allocator");

    @TempDir
    Path dir;

    private static Map<String, Path> runs() throws IOException {
        Map<String, Path> runs = new TreeMap<>();
        for (String part : List.of("a", "b")) {
            try (Stream<Path> entries = Files.list(Records.unpacked(RECORD + part))) {
                entries.filter(p -> Files.isRegularFile(p.resolve("report.json")))
                        .forEach(p -> runs.put(p.getFileName().toString(), p));
            }
        }
        return runs;
    }

    private JsonNode analyze(Path run) {
        return CliRunner.analyzeRunDir(run, dir);
    }

    @Test
    void theCleanJobsPassSayingNothingFalseAndTheBuggyOneFailsAtItsKernelLine() throws IOException {
        Map<String, Path> runs = runs();
        assertThat(runs.keySet())
                .containsExactlyInAnyOrder(
                        "ddp-clean-499e0ef",
                        "cudnn-bench-499e0ef",
                        "triton-stride-499e0ef",
                        "cudagraph-499e0ef",
                        "compile-ro-499e0ef",
                        "prefetch-499e0ef",
                        "dataset-cache-499e0ef");
        for (Map.Entry<String, Path> run : runs.entrySet()) {
            JsonNode recorded = CliRunner.json(run.getValue().resolve("report.json"));
            JsonNode now = analyze(run.getValue());
            assertThat(now.get("verdict").asText())
                    .as(run.getKey() + ": judged again")
                    .isEqualTo(recorded.get("verdict").asText());
            if (run.getKey().startsWith("triton-stride")) {
                assertThat(recorded.get("verdict").asText()).isEqualTo("FAIL");
                assertThat(now.toString())
                        .contains("in kernel row_scale_bias_kernel at examples/triton_stride.py:40, launched from"
                                + " examples/triton_stride.py:51");
                continue;
            }
            assertThat(recorded.get("verdict").asText()).as(run.getKey()).isEqualTo("PASS");
            for (JsonNode reason : now.get("reasons")) {
                String level = reason.get("level").asText();
                if (!level.equals("info")) {
                    assertThat(reason.get("code").asText())
                            .as(run.getKey() + ": " + reason)
                            .isIn(TRUE_OF_A_CLEAN_JOB);
                }
            }
        }
    }

    @Test
    void everyPhaseAndEveryEnvironmentCommandRanUnderAChildSubreaper() throws IOException {
        List<Path> logs = new ArrayList<>();
        for (Path run : runs().values()) {
            try (Stream<Path> files = Files.walk(run)) {
                files.filter(p -> p.getFileName().toString().equals("supervisor.log"))
                        .forEach(logs::add);
            }
        }
        assertThat(logs)
                .as("the job phases' and the environment check's")
                .anyMatch(p -> p.toString().contains("/env/commands/"))
                .anyMatch(p -> p.toString().contains("/sanitizer-memcheck/"));
        for (Path log : logs) {
            assertThat(Files.readString(log))
                    .as(log.toString())
                    .contains("a child subreaper (through /usr/bin/perl): the phase is its descendants");
        }
    }
}
