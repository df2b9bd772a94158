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
 * Issues #47 and #48 on the card, the fifth session of 2026-12-07 (examples/public/verify.sh on an H100 80GB HBM3,
 * driver 580.159.04, compute-sanitizer 2025.3.1, torch 2.11.0+cu130; records/h100-2026-12-07.md, verify-d): each gate
 * run read again by {@code analyze --run-dir} with this tree's code, its verdict and its words as the card gave them.
 */
class VerifyDH100RecordTest {
    private static final String RECORD = "h100-2026-12-07-verify-d";

    @TempDir
    Path dir;

    private JsonNode analyzed(String job) {
        return CliRunner.analyzeRunDir(Records.unpacked(RECORD + "/" + job), dir);
    }

    private static List<String> codes(JsonNode report) {
        List<String> codes = new ArrayList<>();
        report.get("reasons").forEach(r -> codes.add(r.get("code").asText()));
        return codes;
    }

    private static JsonNode work(JsonNode report, String run) {
        for (JsonNode w : report.get("work")) {
            if (w.get("run").asText().equals(run)) {
                return w;
            }
        }
        throw new AssertionError("no work for " + run + " in " + report.get("work"));
    }

    /** The public DDP tutorial under torchrun and two example jobs: clean, PASS, each run's work shown. */
    @Test
    void cleanJobsPassWithEveryRunsWorkShown() {
        for (String job : List.of("ddp", "cudnn-bench", "hand-lstm")) {
            JsonNode report = analyzed(job);
            assertThat(report.get("verdict").asText())
                    .as(job + " " + codes(report))
                    .isEqualTo("PASS");
            for (String run : List.of("sanitizer-memcheck", "blocking", "regression")) {
                JsonNode w = work(report, run);
                assertThat(w.get("backwardPasses").asLong()).as(job + " " + run).isPositive();
            }
        }
        // hand-written SGD (p.data.add_): no optimizer, its work is its backward passes, the same in every run
        JsonNode hand = analyzed("hand-lstm");
        for (String run : List.of("sanitizer-memcheck", "blocking", "regression")) {
            assertThat(work(hand, run).get("optimizerSteps").asLong()).isZero();
            assertThat(work(hand, run).get("backwardPasses").asLong()).isEqualTo(60);
        }
    }

    /**
     * A torchrun job whose snapshot lives under /tmp, run as two builds: the first build's runs share the snapshot
     * (the blocking run wrote it before the others read it), the second resumes from the first's: never PASS, the
     * path named.
     */
    @Test
    void aResumeFromTmpIsNoPassInEitherBuildAndNamesThePath() {
        JsonNode first = analyzed("resume-tmp-build1");
        assertThat(first.get("verdict").asText()).isEqualTo("ERROR");
        assertThat(codes(first)).contains("less-work");
        // the runs' own overlap, said as such: the blocking run never read the snapshot the others resumed from
        assertThat(first.get("reasons").findValuesAsText("message"))
                .filteredOn(m -> m.startsWith("sanitizer-memcheck did 0 optimizer step(s) where blocking did 192"))
                .singleElement()
                .satisfies(m -> assertThat(m)
                        .contains(
                                "that blocking, which did the work, never read: /tmp/resume-verify/snapshot.pt (tmp).")
                        .contains("keep such state (a checkpoint, a snapshot, an output folder) under the working"
                                + " directory")
                        .doesNotContain("pymp"));
        JsonNode second = analyzed("resume-tmp-build2");
        assertThat(second.get("verdict").asText()).isEqualTo("UNSTABLE");
        assertThat(codes(second)).contains("no-work");
        assertThat(second.get("reasons").findValuesAsText("message"))
                .anySatisfy(m -> assertThat(m).contains("/tmp/resume-verify"));
    }

    /** #48 3: the uninitialized tail read in the job's own CuPy kernel past the print limit: UNSTABLE, never ERROR. */
    @Test
    void anUninitializedReadInTheJobsOwnKernelIsUnstableAtItsLine() {
        JsonNode report = analyzed("mask-tail");
        assertThat(report.get("verdict").asText()).isEqualTo("UNSTABLE");
        JsonNode defect = report.get("defects").get(0);
        assertThat(defect.get("kind").asText()).isEqualTo("uninitialized-read");
        assertThat(defect.get("kernel").asText()).isEqualTo("apply_mask");
        assertThat(codes(report)).doesNotContain("sanitizer-incomplete", "sanitizer-exit", "stopped-unchecked");
    }

    /** #48 2: PyTorch's own initcheck records on a bf16 transformer are PyTorch's: PASS, the records suppressed. */
    @Test
    void pyTorchsOwnInitcheckRecordsAreNoDefectOfTheJob() {
        JsonNode report = analyzed("transformer-initcheck");
        assertThat(report.get("verdict").asText()).isEqualTo("PASS");
        assertThat(report.get("defects"))
                .isNotEmpty()
                .allSatisfy(d -> assertThat(d.get("suppressed").asBoolean()).isTrue());
        // what was not checked is said, not hidden behind the PASS
        assertThat(codes(report)).contains("stopped-unchecked", "unprinted-unchecked");
    }

    /** The bug jobs keep their verdicts and lines. */
    @Test
    void bugJobsFailAtTheirLines() {
        JsonNode triton = analyzed("triton-stride");
        assertThat(triton.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(triton.get("defects")
                        .get(0)
                        .get("deviceLocation")
                        .get("line")
                        .asInt())
                .isEqualTo(40);
        assertThat(triton.get("defects").get(0).get("hostLocation").get("line").asInt())
                .isEqualTo(51);
        JsonNode bmm = analyzed("sparse-bmm");
        assertThat(bmm.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(bmm.get("defects").findValuesAsText("kind")).contains("misaligned");
    }
}
