package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Clean jobs whose memory rises in a few steps, recorded on an H100 (records/h100-2026-12-07.md): the jar of
 * that day said {@code memory-growth} for cudnn-bench (cudnn.benchmark autotuning new shapes: one step, then
 * flat) and nanoGPT with {@code --compile=True} (compilation, then the last evaluation and checkpoint). Their
 * regression runs' per-process curves, judged again by {@code analyze --run-dir}, are not growth; the recorded
 * leaks still are.
 */
class MemoryStepsH100RecordTest {
    @TempDir
    Path dir;

    private JsonNode analyzed(String run) {
        return CliRunner.analyzeRunDir(Records.unpacked(run), dir);
    }

    private static List<String> codes(JsonNode report) {
        List<String> codes = new ArrayList<>();
        report.get("reasons").forEach(r -> codes.add(r.get("code").asText()));
        return codes;
    }

    @ParameterizedTest
    @ValueSource(strings = {"h100-2026-12-07-verify-a/cudnn-bench", "h100-2026-12-07-verify-b/nanogpt-compile"})
    void memoryThatRisesInAFewStepsIsNotALeak(String run) {
        JsonNode report = analyzed(run);
        JsonNode memory = report.get("memory").get(0);
        assertThat(memory.get("basis").asText()).isEqualTo("per-process");
        assertThat(memory.get("source").asText()).endsWith("regression/nvidia-smi-apps.csv");
        // the curve rises after warm-up, a trend a slope alone would call growth
        assertThat(memory.get("trendMiBPerMin").asDouble())
                .as(memory.toString())
                .isGreaterThan(100);
        assertThat(memory.get("shape").asText())
                .as(memory.get("description").asText())
                .isNotEqualTo("growing");
        assertThat(memory.get("growthMiBPerMin").asDouble()).isZero();
        assertThat(codes(report)).doesNotContain("memory-growth", "memory-growth-slow");
    }

    /** cudnn_bench.py's expected verdict, now that its memory is not called a leak. */
    @Test
    void cudnnBenchmarkPasses() {
        JsonNode report = analyzed("h100-2026-12-07-verify-a/cudnn-bench");
        assertThat(report.get("verdict").asText()).as(codes(report).toString()).isEqualTo("PASS");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "h200-2026-12-04-beside/ours-grows", // per-process, +2 MiB a second beside a flat process
                "h200-2026-12-03/leak-logits", // +2 MiB every 1.0-1.25 s
                "h200-2026-12-02/leak", // 64 MiB a step
                "h200-probe/leak"
            })
    void recordedLeaksStillGrow(String run) {
        JsonNode report = analyzed(run);
        assertThat(report.get("memory").get(0).get("shape").asText()).isEqualTo("growing");
        assertThat(report.get("verdict").asText()).isEqualTo("UNSTABLE");
        assertThat(codes(report)).contains("memory-growth");
    }
}
