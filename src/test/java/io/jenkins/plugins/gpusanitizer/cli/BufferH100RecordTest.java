package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #42 on real output (records/h100-buffer-explore-2.zip.xz and its .md): memcheck on the out-of-bounds
 * example jobs with the probe's allocation record beside its log, read again by {@code analyze}. Each defect names
 * the buffer memcheck's nearest allocation is, its size, the job's line that allocated it and, where the job's
 * code held the tensor, its shape; the far write's nearest allocation is none the job made, and says so.
 */
class BufferH100RecordTest {
    @TempDir
    Path dir;

    private JsonNode buffer(String run) {
        Path json = dir.resolve(run + ".json");
        CliRunner r = CliRunner.run(
                "analyze",
                "--sanitizer-log",
                Records.unpacked("h100-buffer-explore-2/" + run + "/memcheck.log")
                        .toString(),
                "--sanitizer-xml",
                Records.unpacked("h100-buffer-explore-2/" + run + "/memcheck.xml")
                        .toString(),
                "--json",
                json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 2);
        JsonNode report = CliRunner.json(json);
        JsonNode buffer = null;
        int withBuffer = 0;
        for (JsonNode d : report.get("defects")) {
            if (d.has("buffer")) {
                withBuffer++;
                buffer = d.get("buffer");
            }
        }
        assertThat(withBuffer)
                .as("the access defect; memcheck's follow-on API errors name no address")
                .isEqualTo(1);
        assertThat(report.get("reasons").toString())
                .contains(buffer.get("summary").asText());
        return buffer;
    }

    @Test
    void theCupyPackageKernelRanPastTheOutputAllocatedAtOpsLine29() {
        JsonNode b = buffer("cupy-oob");
        assertThat(b.get("summary").asText())
                .isEqualTo("1 byte past the end of a 65,536-byte buffer allocated at ops.py:29 (jitter)");
        assertThat(b.at("/site/file").asText()).endsWith("examples/cupy_pkg/trainer/ops.py");
        assertThat(b.at("/site/code").asText()).isEqualTo("out = torch.zeros_like(x)");
    }

    @Test
    void theTritonStrideBugRanPastTheLabelBufferMemcheckNames() {
        assertThat(buffer("triton-stride").get("summary").asText())
                .isEqualTo("897 bytes past the end of a 512-byte buffer (int64 [64]) allocated at"
                        + " triton_stride.py:88 (main)");
    }

    @Test
    void theOffByOneScatterAddRanOneRowPastTheNodeBuffer() {
        JsonNode b = buffer("scatter");
        assertThat(b.get("summary").asText())
                .isEqualTo("1 byte past the end of a 25,600-byte buffer (float32 [400, 16]) allocated at"
                        + " scatter_add_job.py:33 (scatter_sum)");
        assertThat(b.at("/site/code").asText()).contains("# node buffer");
    }

    @Test
    void theExtensionRanPastTheOutputItAllocatedInTheCallAtLine62() {
        JsonNode b = buffer("inline-ext");
        assertThat(b.get("summary").asText())
                .isEqualTo("1 byte past the end of a 6,400-byte buffer allocated at inline_ext_job.py:62 (main)");
        assertThat(b.at("/site/code").asText()).contains("# extension output");
    }

    @Test
    void theFarWritesNearestAllocationIsNoneTheJobMadeAndTheLineSaysSo() {
        JsonNode b = buffer("far");
        assertThat(b.get("placement").asText()).isEqualTo("unnamed");
        assertThat(b.get("summary").asText())
                .startsWith("66,534,772,481 bytes past the end of a 512-byte allocation at 0x7f9ce6c00000; the job's"
                        + " allocation record has none there")
                .doesNotContain("allocated at");
    }
}
