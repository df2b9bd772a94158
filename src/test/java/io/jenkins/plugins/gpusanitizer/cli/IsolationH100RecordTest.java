package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #40 on the card (examples/h200/capture-isolation.sh, an H100, jar d2e8464; records/README.md): a torchrun
 * job that resumes from its snapshot and a job that saves and reloads its model, each run in its own copy of the
 * workspace, read again by {@code analyze --run-dir}; and the same torchrun job with {@code --no-isolation}, where
 * the runs shared the workspace and two of the three resumed and trained nothing.
 */
class IsolationH100RecordTest {
    @TempDir
    Path dir;

    private static List<String> codes(JsonNode report) {
        List<String> codes = new ArrayList<>();
        report.get("reasons").forEach(r -> codes.add(r.get("code").asText()));
        return codes;
    }

    @Test
    void theResumingTorchrunJobDidAllItsWorkInEachRunAndPasses() {
        JsonNode r = CliRunner.analyzeRunDir(Records.unpacked("h100-2026-12-06-isolation/resume-ddp"), dir);

        assertThat(r.get("verdict").asText()).as(r.get("reasons").toString()).isEqualTo("PASS");
        assertThat(r.get("work")).hasSize(3).allSatisfy(w -> {
            assertThat(w.get("optimizerSteps").asLong()).as(w.toString()).isEqualTo(128);
            // torchrun's own process imports torch too; the rank is the one with a CUDA context
            assertThat(w.get("processes").asInt()).isEqualTo(2);
            assertThat(w.get("cudaProcesses").asLong()).isEqualTo(1);
            assertThat(w.get("workspace").asText()).contains("/workspaces/");
            assertThat(w.get("workspaceChanges").asLong()).isEqualTo(3);
        });
        assertThat(Records.unpacked("h100-2026-12-06-isolation/resume-ddp/sanitizer-memcheck/workspace.txt"))
                .content()
                .contains("new ", "snapshot.pt", "out/epoch-0.json", "out/epoch-1.json");
    }

    @Test
    void theSaveThenLoadJobInAThreeHundredMegabyteWorkspacePasses() {
        JsonNode r = CliRunner.analyzeRunDir(Records.unpacked("h100-2026-12-06-isolation/save-load"), dir);

        assertThat(r.get("verdict").asText()).as(r.get("reasons").toString()).isEqualTo("PASS");
        assertThat(r.get("work"))
                .hasSize(3)
                .allSatisfy(w -> assertThat(w.get("optimizerSteps").asLong()).isEqualTo(597));
        assertThat(Records.unpacked("h100-2026-12-06-isolation/save-load/blocking/workspace.txt"))
                .content()
                .contains("model.pt", "processed/tokens.pt", "lightning_logs/version_0/metrics.csv");
    }

    /** The gate of jar d2e8464 said PASS here; the rule that a run with no step did no training says otherwise. */
    @Test
    void withoutIsolationTheTwoRunsThatResumedAndTookNoStepAreNoPass() {
        JsonNode r = CliRunner.analyzeRunDir(Records.unpacked("h100-2026-12-06-shared/resume-ddp-shared"), dir);

        assertThat(r.get("verdict").asText()).isEqualTo("ERROR");
        assertThat(codes(r))
                .as(r.get("reasons").toString())
                .filteredOn("less-work"::equals)
                .hasSize(2);
        assertThat(r.get("reasons").toString())
                .contains("sanitizer-memcheck did 0 optimizer step(s) where blocking did 128")
                .contains("regression did 0 optimizer step(s) where blocking did 128")
                .contains("isolation is off");
    }

    /**
     * torch.compile (reduce-overhead, CUDA graphs) under the probe, each run in its own copy: every run took its 30 steps
     * (records/h100-amp-work.zip.xz: bench/gpu-minutes.sh compile-ro, jar 5a12a0b, the same H100 kind).
     */
    @Test
    void theCompiledJobTookAllItsStepsInEachRunAndPasses() {
        JsonNode r = CliRunner.analyzeRunDir(Records.unpacked("h100-amp-work/compile-ro-5a12a0b"), dir);

        assertThat(r.get("verdict").asText()).as(r.get("reasons").toString()).isEqualTo("PASS");
        assertThat(codes(r)).doesNotContain("less-work", "no-gpu-work", "detached");
        assertThat(r.get("work")).hasSize(3).allSatisfy(w -> {
            assertThat(w.get("optimizerSteps").asLong()).as(w.toString()).isEqualTo(30);
            assertThat(w.get("cudaProcesses").asLong()).isEqualTo(1);
            assertThat(w.get("workspace").asText()).contains("/workspaces/");
        });
    }
}
