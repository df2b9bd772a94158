package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #48 on the card (examples/public/verify.sh, an H100 80GB HBM3 the device tool gave, driver 580.159.04,
 * compute-sanitizer 2025.3.1, torch 2.11.0+cu130, the jar of f6cb8fd; records/h100-2026-12-07.md): public programs
 * and bug reproductions through the gate, read again by {@code analyze --run-dir} with this tree's code.
 */
class PublicProgramsH100RecordTest {
    @TempDir
    Path dir;

    private JsonNode analyzed(String record, String job, int exit) {
        Path run = Records.unpacked(record + "/" + job);
        Path json = dir.resolve(job + ".json");
        CliRunner r = CliRunner.run("analyze", "--run-dir", run.toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(exit);
        return CliRunner.json(json);
    }

    /**
     * pytorch/pytorch#144612 verbatim: cuSPARSE's coomv_kernel reads 16 bytes at an address that is not 16-aligned,
     * inside the 2,328,840-byte workspace torch.bmm allocated (the record holds it, live, 4,096 bytes of padding
     * more). memcheck flags a misaligned access in live memory: the buffer is named, and no use after free is said.
     */
    @Test
    void aMisalignedReadInsideALiveBufferNamesTheBufferAndSaysNothingOfAFree() {
        JsonNode report = analyzed("h100-2026-12-07-verify-a", "sparse-bmm", 1);
        assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
        JsonNode access = null;
        for (JsonNode d : report.get("defects")) {
            if (d.has("buffer")) {
                access = d;
            }
        }
        assertThat(access).as(report.get("defects").toString()).isNotNull();
        assertThat(access.get("kind").asText()).isEqualTo("misaligned");
        JsonNode buffer = access.get("buffer");
        assertThat(buffer.get("placement").asText()).isEqualTo("inside");
        assertThat(buffer.get("site").get("line").asInt()).isEqualTo(7);
        assertThat(buffer.get("site").get("code").asText()).isEqualTo("torch.bmm(m1, m2)");
        assertThat(buffer.get("summary").asText())
                .startsWith("misaligned, inside a 2,328,840-byte buffer")
                .contains("2,049,156 bytes from its start")
                .doesNotContainIgnoringCase("freed");
    }

    /**
     * karpathy/nanoGPT (40 iterations, with and without torch.compile) ran out of GPU memory under memcheck only; its
     * line is torch 2.11's {@code torch.AcceleratorError: CUDA error: out of memory} (the caching allocator is off in
     * the sanitizer run), which the gate first did not read as an out-of-memory and called a death it could not
     * explain. Not FAIL: UNSTABLE, the out-of-memory said with the job's own line, what was checked and what to do.
     */
    @Test
    void nanoGptsOutOfMemoryUnderTheToolOnlyIsSaidAsOne() {
        for (String[] run :
                new String[][] {{"h100-2026-12-07-verify-a", "nanogpt"}, {"h100-2026-12-07-verify-b", "nanogpt-compile"}
                }) {
            JsonNode report = analyzed(run[0], run[1], 2);
            assertThat(report.get("verdict").asText()).isEqualTo("UNSTABLE");
            assertThat(report.get("reasons").findValuesAsText("code"))
                    .contains("sanitizer-only-oom")
                    .doesNotContain("sanitizer-only-death", "defect", "target-failed");
            String said = "";
            for (JsonNode r : report.get("reasons")) {
                if (r.get("code").asText().equals("sanitizer-only-oom")) {
                    said = r.get("message").asText();
                }
            }
            assertThat(said)
                    .as(run[1])
                    .contains("its stderr: torch.AcceleratorError: CUDA error: out of memory")
                    .contains("the blocking and regression runs passed")
                    .contains("--sanitizer-command")
                    // measured: a launch window lets the job fill the card sooner under the tool (issue #49)
                    .contains("a launch window (--launch-count) does not")
                    .doesNotContain("not known to the gate");
        }
    }

    private static String said(JsonNode report, String code) {
        for (JsonNode r : report.get("reasons")) {
            if (r.get("code").asText().equals(code)) {
                return r.get("message").asText();
            }
        }
        return null;
    }

    /**
     * word_language_model's LSTM: verify.sh's time limit cut the gate while memcheck ran (memcheck of that job takes
     * over 300 s). ERROR, by the abort; the tool's "couldn't find exit code" is the cut's, not a tool failure.
     */
    @Test
    void aGateCutWhileMemcheckRanIsAnAbortNotAToolFailure() {
        JsonNode report = analyzed("h100-2026-12-07-verify-b", "wlm-lstm", 3);
        assertThat(report.get("verdict").asText()).isEqualTo("ERROR");
        assertThat(report.get("reasons").findValuesAsText("code")).doesNotContain("tool-failure");
        assertThat(said(report, "aborted"))
                .startsWith("sanitizer-memcheck was aborted after 171.7 s (aborted: the supervisor was signalled")
                .doesNotContain("later phases did not run");
        assertThat(said(report, "stopped-target")).contains("(expected: the run was aborted");
    }

    /**
     * The transformer job under initcheck (that jar left PyTorch's kernels out): the gate stopped initcheck at its
     * print limit with every printed record suppressed. What it tells the user to do does not include leaving
     * kernels out, and the filter of that run is said.
     */
    @Test
    void initcheckStoppedOnNoiseAdvisesNoKernelFilter() {
        JsonNode report = analyzed("h100-2026-12-07-verify-b", "transformer-initcheck", 0);
        assertThat(said(report, "stopped-unchecked"))
                .endsWith("(raise --print-limit)")
                .doesNotContain("--kernel-name-exclude");
        assertThat(said(report, "initcheck-kernel-filter")).contains("(--kernel-name-exclude=kns=_ZN2at6native)");
    }
}
