package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #25, 4 on the H200 (records/h200-2026-12-04-cupy.zip.xz, examples/h200/capture-2026-12-04-beside.sh
 * cupy-oob cupy-clean): a CuPy RawKernel in a package module, {@code examples/cupy_pkg/trainer/ops.py}, writes
 * out of bounds. The sanitizer phase had CuPy keep the kernel's source and compile it with a line table, so
 * the record's device line is line 10 of that source, shown with its text, and the launch is named by its
 * path under the working directory. {@code analyze --run-dir} reads it all again from the raw files.
 */
class CupyPackageH200RecordTest {
    @TempDir
    Path dir;

    private JsonNode analyze(String run) {
        Path json = dir.resolve(run + ".json");
        CliRunner r = CliRunner.run(
                "analyze",
                "--run-dir",
                Records.unpacked("h200-2026-12-04-cupy/" + run).toString(),
                "--json",
                json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 2);
        return CliRunner.json(json);
    }

    @Test
    void theKernelsOwnLineAndThePackagePathAreNamed() {
        JsonNode r = analyze("cupy-oob");

        assertThat(r.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(r.get("reasons").get(0).get("message").asText())
                .contains("in kernel jitter_copy at line 10 of the CuPy/NVRTC kernel's source:"
                        + " `dst[r * cols + to] = src[i];`")
                .contains("launched from examples/cupy_pkg/trainer/ops.py:31 (jitter)")
                .doesNotContain("launched from ops.py");
        JsonNode device = r.get("defects").get(0).get("deviceLocation");
        assertThat(device.get("line").asInt()).isEqualTo(10);
        assertThat(device.get("code").asText()).isEqualTo("dst[r * cols + to] = src[i];");
    }

    @Test
    void theCleanJobPasses() {
        assertThat(analyze("cupy-clean").get("verdict").asText()).isEqualTo("PASS");
    }
}
