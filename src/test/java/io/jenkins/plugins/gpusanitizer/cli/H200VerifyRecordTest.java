package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code analyze --run-dir} over the run directories the fixed CLI wrote on the H200
 * (records/h200-2026-12-03-verify.zip.xz, and the same cases again with the runner of 2026-12-04, whose
 * sanitizer and blocking runs start beside the environment check, in records/h200-2026-12-04-verify.zip.xz):
 * the verdicts and lines the runner gave there come out again.
 */
class H200VerifyRecordTest {
    static final Path RECORD = Records.unpacked("h200-2026-12-03-verify");

    @TempDir
    Path dir;

    /** Every record of the verify cases, each made by a later runner. */
    static List<String> everyVerifyRecord() {
        return List.of(
                "h200-2026-12-03-verify",
                "h200-2026-12-04-verify",
                "h200-2026-12-04-verify/blocking-cut",
                "h200-2026-12-04-verify/final",
                "h200-2026-12-04-verify/after-review");
    }

    private JsonNode analyze(String runCase, int exit) {
        return analyze(RECORD, runCase, exit);
    }

    private JsonNode analyze(Path record, String runCase, int exit) {
        Path json = dir.resolve(runCase + ".json");
        CliRunner r =
                CliRunner.run("analyze", "--run-dir", record.resolve(runCase).toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(exit);
        JsonNode report = CliRunner.json(json);
        // the runner's own report in the same directory says the same
        JsonNode runner = CliRunner.json(record.resolve(runCase).resolve("report.json"));
        assertThat(report.get("verdict").asText())
                .isEqualTo(runner.get("verdict").asText());
        return report;
    }

    private static JsonNode phase(JsonNode r, String name) {
        return StreamSupport.stream(r.get("execution").get("phases").spliterator(), false)
                .filter(p -> p.get("name").asText().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @ParameterizedTest
    @MethodSource("everyVerifyRecord")
    void aCleanTorchrunNcclJobPasses(String record) {
        JsonNode r = analyze(Records.unpacked(record), "ddp-clean", 0);
        assertThat(r.get("defects"))
                .allSatisfy(d ->
                        assertThat(d.get("suppressedBy").get("rule").asText()).isEqualTo("vendor-handled-api-error"));
        assertThat(phase(r, "sanitizer-memcheck").get("status").asText()).isEqualTo("passed");
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-2026-12-03-verify", "h200-2026-12-04-verify"})
    void aCudaGraphJobIsCheckedAgainWithTheCacheKeptAndPasses(String record) {
        JsonNode r = analyze(Records.unpacked(record), "cudagraph", 0);
        assertThat(phase(r, "sanitizer-memcheck-cached").get("status").asText()).isEqualTo("passed");
        assertThat(r.get("reasons").toString()).contains("capture-conflict").contains("caching-allocator");
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-2026-12-03-verify", "h200-2026-12-04-verify"})
    void cudnnBenchmarkAutotuningIsNoLeak(String record) {
        analyze(Records.unpacked(record), "cudnn-bench", 0);
    }

    @ParameterizedTest
    @MethodSource("everyVerifyRecord")
    void theTritonKernelThatWroteOutOfBoundsIsTheFaultNotTheCrossEntropyThatTrippedOverIt(String record) {
        JsonNode r = analyze(Records.unpacked(record), "triton-stride", 1);
        JsonNode d = r.get("diagnosis");
        assertThat(d.get("faultAt").get("line").asInt()).isEqualTo(51);
        assertThat(d.get("faultEvidence").asText()).isEqualTo("sanitizer");
        assertThat(d.get("summary").asText())
                .contains("kernel row_scale_bias_kernel at triton_stride.py:40")
                .contains("the blocking run's failure at triton_stride.py:109");
    }

    @ParameterizedTest
    @MethodSource("everyVerifyRecord")
    void aTorchrunWorkersTracebackIsReadWithItsRank(String record) {
        JsonNode r = analyze(Records.unpacked(record), "ddp-scatter", 1);
        assertThat(r.get("diagnosis").get("reportedAt").get("line").asInt()).isEqualTo(121);
        assertThat(r.get("diagnosis").get("faultAt").get("line").asInt()).isEqualTo(82);
        assertThat(r.get("diagnosis").get("summary").asText()).contains("on rank 0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-2026-12-03-verify", "h200-2026-12-04-verify"})
    void aHangAfterACaughtGpuErrorSaysSo(String record) {
        JsonNode r = analyze(Records.unpacked(record), "hang-driver", 1);
        assertThat(r.get("reasons").toString())
                .contains("an illegal memory access was encountered")
                .contains("the hang followed a GPU fault");
    }

    @Test
    void aCompiledModelsAssertIsLaunchedFromTheUsersCallAndItsGeneratedKernelIsKept() {
        JsonNode r = analyze("compile-oob", 1);
        assertThat(r.get("diagnosis").get("faultAt").get("file").asText()).endsWith("compile_job.py");
        assertThat(r.get("diagnosis").get("faultAt").get("line").asInt()).isEqualTo(84);
        assertThat(r.get("reasons").toString()).contains("launched from compile_job.py:84");
        assertThat(RECORD.resolve("compile-oob/blocking/generated/files.tsv"))
                .content()
                .contains("cen25zllbh6kms5g4lrm6gwivlrceprhzvbthb2aw5lbo2kypdyh.py");
        assertThat(RECORD.resolve(
                        "compile-oob/blocking/generated/cen25zllbh6kms5g4lrm6gwivlrceprhzvbthb2aw5lbo2kypdyh.py"))
                .content()
                .contains("index out of bounds");
    }

    @Test
    void aSharedMemoryRaceIsNamedByItsKernelFromTheRunnersXml() {
        JsonNode r = analyze("racecheck", 1);
        assertThat(r.get("defects")).singleElement().satisfies(d -> {
            assertThat(d.get("kernel").asText()).isEqualTo("row_sumsq");
            assertThat(d.get("detail").asText()).contains("Write at row_sumsq+0x200 -> Read at row_sumsq+0x270");
        });
    }

    @Test
    void withTheXmlLostTheTextLogsFullPathsStillNameTheTritonLaunchLine() throws Exception {
        // the runner asks compute-sanitizer for full paths: with its default basenames the text log
        // says "__call__ in driver.py:713", which nothing tells apart from the user's own driver.py
        Path phase = Records.unpacked("h200-2026-12-04-verify/triton-stride/sanitizer-memcheck");
        assertThat(phase.resolve("command.txt")).content().contains("--strip-paths no");
        Path json = dir.resolve("text-only.json");
        CliRunner r = CliRunner.run(
                "analyze", "--sanitizer-log", phase.resolve("sanitizer.log").toString(), "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        JsonNode d = CliRunner.json(json).get("diagnosis");
        assertThat(d.get("faultAt").get("file").asText()).endsWith("triton_stride.py");
        assertThat(d.get("faultAt").get("line").asInt()).isEqualTo(51);

        Path stripped = RECORD.resolve("triton-stride/sanitizer-memcheck");
        assertThat(stripped.resolve("command.txt")).content().doesNotContain("--strip-paths");
        CliRunner.run(
                "analyze", "--sanitizer-log", stripped.resolve("sanitizer.log").toString(), "--json", json.toString());
        assertThat(CliRunner.json(json)
                        .get("diagnosis")
                        .get("faultAt")
                        .get("file")
                        .asText())
                .as("why: the same case's text log from before, with basenames")
                .isEqualTo("driver.py");
    }

    @Test
    void theBlockingRunBesideAShorterSanitizerRunIsCutWhenItEndsCleanAndTheJobStillPasses() {
        Path record = Records.unpacked("h200-2026-12-04-verify/blocking-cut");
        JsonNode r = analyze(record, "cudnn-bench", 0);
        JsonNode blocking = phase(r, "blocking");
        assertThat(blocking.get("status").asText()).isEqualTo("stopped-early");
        assertThat(blocking.get("wallSeconds").asDouble())
                .as("cut as the sanitizer run ended, not run to its end")
                .isLessThan(phase(r, "sanitizer-memcheck").get("wallSeconds").asDouble() + 3);
        assertThat(r.get("reasons").findValuesAsText("code")).contains("blocking-cut");
    }

    @Test
    void aBugTheShortSanitizerRunNeverReachesIsStillFoundAtItsLine() {
        JsonNode r = analyze(Records.unpacked("h200-2026-12-04-verify/blocking-cut"), "ddp-late", 1);
        assertThat(r.get("diagnosis").get("faultAt").get("line").asInt()).isEqualTo(82);
        assertThat(phase(r, "sanitizer-memcheck").get("status").asText()).isEqualTo("passed");
    }

    @Test
    void aCleanTorchrunJobsCutBlockingRunEndsInTorchrunsSignalTracebackAndStillPasses() {
        Path record = Records.unpacked("h200-2026-12-04-verify/blocking-cut-long");
        assertThat(record.resolve("ddp-long-clean/blocking/stderr.log"))
                .content()
                .contains("SignalException");
        JsonNode r = analyze(record, "ddp-long-clean", 0);
        assertThat(phase(r, "blocking").get("status").asText()).isEqualTo("stopped-early");
        assertThat(r.get("reasons").findValuesAsText("code"))
                .contains("blocking-cut")
                .doesNotContain("job-error");
    }

    @Test
    void aLateBugIsLocatedByTheBlockingRunRunAgainEvenWhenNcclsWatchdogEatsItsTraceback() {
        Path record = Records.unpacked("h200-2026-12-04-verify/blocking-cut-long");
        assertThat(record.resolve("ddp-late-long/blocking-cut/stderr.log"))
                .content()
                .contains("SignalException");
        // the full run died by SIGABRT from NCCL's watchdog before Python printed the traceback
        assertThat(record.resolve("ddp-late-long/blocking/stderr.log"))
                .content()
                .contains("Process group watchdog thread terminated with exception")
                .doesNotContain("[rank0]: Traceback");
        JsonNode r = analyze(record, "ddp-late-long", 1);
        assertThat(phase(r, "blocking").get("status").asText()).isEqualTo("failed");
        assertThat(phase(r, "blocking").get("note").asText()).contains("run again in full");
        JsonNode d = r.get("diagnosis");
        assertThat(d.get("reportedAt").get("line").asInt())
                .as("the innocent .item()")
                .isEqualTo(130);
        assertThat(d.get("faultAt").get("line").asInt()).isEqualTo(82);
        assertThat(d.get("faultEvidence").asText()).isEqualTo("blocking-probe");
        assertThat(d.get("notes").toString()).contains("the in-process probe saw aten::index_add raise the error");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ddp-clean", "cudnn-bench", "triton-stride", "ddp-scatter"})
    void theFullPathTextLogAloneGivesTheVerdictOfTheWholeRun(String runCase) {
        // the XML lost: the text log (full paths, module lines of their own) must still suppress NCCL's noise
        Path record = Records.unpacked("h200-2026-12-04-verify/final");
        JsonNode runner = CliRunner.json(record.resolve(runCase).resolve("report.json"));
        Path json = dir.resolve(runCase + "-text.json");
        CliRunner r = CliRunner.run(
                "analyze",
                "--sanitizer-log",
                record.resolve(runCase + "/sanitizer-memcheck/sanitizer.log").toString(),
                "--json",
                json.toString());
        JsonNode text = CliRunner.json(json);
        assertThat(text.get("verdict").asText())
                .as(r.out())
                .isEqualTo(runner.get("verdict").asText());
        assertThat(text.get("defects").size()).isEqualTo(runner.get("defects").size());
    }
}
