package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.AbstractParserTest;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.ParsedOutput;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** compute-sanitizer text logs; the contract cases run on far-oob/memcheck.log (a torch job on the H200). */
class SanitizerTextParserTest extends AbstractParserTest<ParsedOutput> {
    private final SanitizerTextParser parser = new SanitizerTextParser();
    private final List<SanitizerRecord> records = new ArrayList<>();

    SanitizerTextParserTest() {
        super(Corpus.file("far-oob/memcheck.log"));
    }

    @Override
    protected ParsedOutput parse(Path file) {
        List<SanitizerRecord> parsed = new ArrayList<>();
        return new ParsedOutput(new SanitizerTextParser().parse(file, null, parsed::add), parsed);
    }

    @Override
    protected long recordCount(ParsedOutput result) {
        assertThat(result.output().recordsParsed()).isEqualTo(result.records().size());
        return result.records().size();
    }

    @Override
    protected boolean readsAsFinished(ParsedOutput result) {
        return result.output().complete();
    }

    @Override
    protected Long statedTotal(ParsedOutput result) {
        return result.output().errorsTotal();
    }

    @Override
    protected List<String> problems(ParsedOutput result) {
        return result.output().problems();
    }

    @Override
    protected Pattern recordStart() {
        return Pattern.compile("(?m)^========= Invalid ");
    }

    @Override
    protected String emptyFileProblem() {
        return "empty file, expected compute-sanitizer text output";
    }

    @Override
    protected String foreignOutput() {
        return "==1234== Memcheck, a memory error detector\n==1234== Invalid write of size 4\n"
                + "==1234==    at 0x4005: main (a.c:5)\n==1234== ERROR SUMMARY: 1 errors from 1 contexts\n";
    }

    @Override
    protected String foreignProblem() {
        return "not compute-sanitizer text output";
    }

    /**
     * "ERROR SUMMARY: 1503 errors were not printed..." cut right after "errors" reads as the summary
     * of a second run that printed nothing else: its total is added, but "2 tool runs in one file"
     * is flagged.
     */
    @Override
    protected boolean cutLooksWhole(String prefix) {
        return Pattern.compile("\n========= ERROR SUMMARY: [\\d,]+ errors?\\s*$")
                .matcher(prefix)
                .find();
    }

    /** The far out-of-bounds write of a torch job: 100 printed of 1603, each with its 30 host frames. */
    @Override
    protected void assertThatRecordsArePresent(ParsedOutput result, SoftAssertions softly) {
        SanitizerOutput out = result.output();
        softly.assertThat(out.tool()).isEqualTo(Tool.MEMCHECK);
        softly.assertThat(out.banner()).isTrue();
        softly.assertThat(out.errorsTotal()).isEqualTo(1603L);
        softly.assertThat(out.errorsNotPrinted()).isEqualTo(1503L);
        softly.assertThat(out.recordsParsed()).isEqualTo(100);
        softly.assertThat(out.targetReturnedError()).isTrue();
        softly.assertThat(out.appCrashed()).isFalse();
        softly.assertThat(out.complete()).isTrue();
        softly.assertThat(out.problems()).isEmpty();
        softly.assertThat(result.records()).hasSize(100).allSatisfy(r -> {
            assertThat(r.kind()).isEqualTo(Kind.OUT_OF_BOUNDS);
            assertThat(r.message()).isEqualTo("Invalid __global__ write of size 4 bytes");
            assertThat(r.kernel()).isEqualTo("scale_shift");
            assertThat(r.pc()).isEqualTo("0x160");
            assertThat(r.deviceLocation()).isNull();
        });
        SanitizerRecord first = result.get(0);
        softly.assertThat(first.thread()).isEqualTo("(0,0,0)");
        softly.assertThat(first.block()).isEqualTo("(3,0,0)");
        softly.assertThat(first.detail())
                .contains("274,739,537,409 bytes after the nearest allocation", "of size 512 bytes");
        softly.assertThat(first.hostFrames()).hasSize(30);
        Frame cupy = first.hostFrames().get(0);
        softly.assertThat(cupy.function()).startsWith("__pyx_f_13cupy_backends_4cuda_3api_6driver_launchKernel(long");
        softly.assertThat(cupy.file()).isEqualTo("driver.cpp");
        softly.assertThat(cupy.line()).isEqualTo(8369);
        softly.assertThat(cupy.module()).isEqualTo("driver.cpython-312-x86_64-linux-gnu.so");
        softly.assertThat(first.hostFrames().get(1).function()).endsWith("[clone .constprop.124]");
        softly.assertThat(first.hostFrames().get(7).function()).isNull();
        softly.assertThat(first.hostFrames().stream()
                        .filter(Frame::python)
                        .map(f -> f.function() + "@" + f.file() + ":" + f.line()))
                .containsExactly(
                        "buggy_scale@train_lstm.py:32",
                        "forward@train_lstm.py:63",
                        "_call_impl@module.py:1790",
                        "_wrapped_call_impl@module.py:1779",
                        "<module>@train_lstm.py:91");
    }

    private SanitizerOutput parse(String corpusFile) {
        return parser.parse(Corpus.file(corpusFile), null, records::add);
    }

    private SanitizerOutput parseRun(String run) throws IOException {
        return parser.parse(Corpus.stream(Corpus.textRun(run)), Path.of(run), null, records::add);
    }

    @Test
    void nearOutOfBoundsWithoutCachingAllocator() {
        SanitizerOutput out = parse("near-oob/memcheck-nocache.log");
        assertThat(out.errorsTotal()).isEqualTo(66L);
        assertThat(out.errorsNotPrinted()).isNull();
        assertThat(out.appCrashed()).isTrue();
        assertThat(records).hasSize(66);
        assertThat(records.stream().filter(r -> r.kind() == Kind.OUT_OF_BOUNDS)).hasSize(64);
        assertThat(records.stream().filter(r -> r.kind() == Kind.API_ERROR).map(SanitizerRecord::message))
                .containsExactly(
                        "cudaErrorLaunchFailure on CUDA API call to cudaFree",
                        "cudaErrorLaunchFailure on CUDA API call to cudaGetLastError");
        assertThat(records.get(0).detail()).contains("1 bytes after the nearest allocation", "of size 6,400 bytes");
    }

    @Test
    void cachingAllocatorRunIsACleanCompleteRun() {
        SanitizerOutput out = parse("near-oob/memcheck-caching-allocator.log");
        assertThat(out.errorsTotal()).isZero();
        assertThat(out.complete()).isTrue();
        assertThat(out.toolFailures()).isEmpty();
        assertThat(records).isEmpty();
    }

    @Test
    void toolThatNeverReachedCudaIsAToolFailure() {
        SanitizerOutput out = parse("tool-errors/missing-script.log");
        assertThat(out.toolFailures())
                .containsExactly("Error: Target application terminated before first instrumented API call");
        assertThat(out.errorsTotal()).isNull();
        assertThat(out.complete()).isFalse();
    }

    @Test
    void leakCheckCrashKeepsItsZeroSummaryButFlagsTheCrash() {
        SanitizerOutput out = parse("leakcheck-crash/memcheck-leakcheck.log");
        assertThat(out.appCrashed()).isTrue();
        assertThat(out.errorsTotal()).isZero();
        assertThat(out.leakSummary()).isEqualTo("0 bytes leaked in 0 allocations");
        assertThat(out.problems()).isEmpty();
    }

    @Test
    void optionRefusalWithoutBannerIsAToolFailure() {
        SanitizerOutput out = parse("tool-errors/xml-without-save.stderr");
        assertThat(out.banner()).isFalse();
        assertThat(out.toolFailures()).containsExactly("--xml was enabled but no save location was specified");
    }

    @Test
    void cppOutOfBoundsHasDeviceLineInfoAndNativeHostFrame() throws IOException {
        SanitizerOutput out = parseRun("mc-oob");
        assertThat(out.errorsTotal()).isEqualTo(30L);
        SanitizerRecord r = records.get(0);
        assertThat(r.kernel()).isEqualTo("oob_write(int *, int)");
        assertThat(r.pc()).isEqualTo("0x80");
        assertThat(r.deviceLocation().file()).isEqualTo("oob.cu");
        assertThat(r.deviceLocation().line()).isEqualTo(10);
        assertThat(r.hostFrames()).containsExactly(Frame.nativeFrame("main", null, 0, "oob"));
    }

    @Test
    void misalignedWrite() throws IOException {
        parseRun("mc-misaligned");
        assertThat(records.get(0).kind()).isEqualTo(Kind.MISALIGNED);
        assertThat(records.get(0).deviceLocation().line()).isEqualTo(14);
        assertThat(records)
                .extracting(SanitizerRecord::kind)
                .containsExactly(Kind.MISALIGNED, Kind.API_ERROR, Kind.API_ERROR);
    }

    @Test
    void deviceAssert() throws IOException {
        SanitizerOutput out = parseRun("mc-assert");
        assertThat(out.errorsTotal()).isEqualTo(3L);
        assertThat(records.get(0).kind()).isEqualTo(Kind.DEVICE_ASSERT);
        assertThat(records.get(0).message()).isEqualTo("Warp assert");
        assertThat(records.get(0).kernel()).isEqualTo("__assertfail");
        assertThat(records.get(1).message()).isEqualTo("cudaErrorAssert on CUDA API call to cudaDeviceSynchronize");
    }

    @Test
    void leaksWithLeakSummary() throws IOException {
        SanitizerOutput out = parseRun("mc-leak");
        assertThat(out.leakSummary()).isEqualTo("4496 bytes leaked in 2 allocations");
        assertThat(out.errorsTotal()).isEqualTo(2L);
        assertThat(records).extracting(SanitizerRecord::kind).containsExactly(Kind.LEAK, Kind.LEAK);
        assertThat(records.get(1).detail()).isEqualTo("Leaked 4,096 bytes");
    }

    @Test
    void apiErrorSingularSummary() throws IOException {
        SanitizerOutput out = parseRun("mc-apierr");
        assertThat(out.errorsTotal()).isEqualTo(1L);
        assertThat(records.get(0).message()).isEqualTo("cudaErrorInvalidValue on CUDA API call to cudaMemcpy");
    }

    @Test
    void printLimitSummary() throws IOException {
        SanitizerOutput out = parseRun("mc-oobmany-limit");
        assertThat(out.errorsTotal()).isEqualTo(16286L);
        assertThat(out.errorsNotPrinted()).isEqualTo(16283L);
        assertThat(records).hasSize(3);
    }

    @Test
    void racecheckAnalysisModeUsesItsOwnSummary() throws IOException {
        SanitizerOutput out = parseRun("rc-race");
        assertThat(out.tool()).isEqualTo(Tool.RACECHECK);
        assertThat(out.errorsTotal()).isEqualTo(1L);
        assertThat(out.warningsTotal()).isZero();
        assertThat(records).hasSize(1);
        SanitizerRecord r = records.get(0);
        assertThat(r.kind()).isEqualTo(Kind.RACE);
        assertThat(r.kernel()).isEqualTo("racy(int *)");
        assertThat(r.deviceLocation().line()).isEqualTo(18);
        assertThat(r.detail()).isEqualTo("63 hazards");
    }

    @Test
    void racecheckHazardMode() throws IOException {
        SanitizerOutput out = parseRun("rc-race-full");
        assertThat(out.tool()).isEqualTo(Tool.RACECHECK);
        assertThat(out.errorsTotal()).isEqualTo(63L);
        assertThat(records).hasSize(63).allSatisfy(r -> {
            assertThat(r.kind()).isEqualTo(Kind.RACE);
            assertThat(r.message()).isEqualTo("Potential WAW hazard at __shared__");
            assertThat(r.kernel()).isEqualTo("racy(int *)");
            assertThat(r.block()).isEqualTo("(0,0,0)");
        });
    }

    @Test
    void initcheckAndSynccheckAreDetected() throws IOException {
        SanitizerOutput ic = parseRun("ic-uninit");
        assertThat(ic.tool()).isEqualTo(Tool.INITCHECK);
        assertThat(ic.errorsTotal()).isEqualTo(32L);
        assertThat(records)
                .hasSize(32)
                .allMatch(r -> r.kind() == Kind.UNINITIALIZED_READ && r.tool() == Tool.INITCHECK);
        records.clear();
        SanitizerOutput sc = parseRun("sc-sync");
        assertThat(sc.tool()).isEqualTo(Tool.SYNCCHECK);
        assertThat(records)
                .hasSize(16)
                .allMatch(r -> r.kind() == Kind.BARRIER_ERROR
                        && r.message().equals("Barrier error detected. Divergent thread(s) in warp")
                        && r.deviceLocation().line() == 26);
    }

    @Test
    void killedToolLeavesNoSummary() {
        SanitizerOutput out = parse("cpp-probe/kill/tool-kill9.log");
        assertThat(out.errorsTotal()).isNull();
        assertThat(out.complete()).isFalse();
        assertThat(out.recordsParsed()).isGreaterThan(0);
        assertThat(out.problems()).anyMatch(p -> p.startsWith("no ERROR SUMMARY"));
    }

    @Test
    void crlfAndAnsiColoursAreTolerated(@TempDir Path dir) {
        String text = Corpus.textRun("mc-apierr").replace("\n", "\r\n").replace("=========", "\u001b[0m=========");
        SanitizerOutput out = parser.parse(Corpus.write(dir, "crlf.log", text), null, records::add);
        assertThat(out.errorsTotal()).isEqualTo(1L);
        assertThat(records.get(0).message()).isEqualTo("cudaErrorInvalidValue on CUDA API call to cudaMemcpy");
    }

    @Test
    void notSanitizerTextGetsOneLineErrors(@TempDir Path dir) {
        // empty and missing files: the contract cases of AbstractParserTest
        assertThatThrownBy(() -> parser.parse(Corpus.file("MANIFEST.md"), null, records::add))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("not compute-sanitizer text output");
        assertThatThrownBy(() -> parser.parse(Corpus.write(dir, "bin.log", "\0\0\u0001ELF\0\0"), null, records::add))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("binary data");
    }

    @Test
    void nulBytesInvalidUtf8AndATenMegabyteLine(@TempDir Path dir) throws IOException {
        byte[] head = Corpus.textRun("mc-apierr").getBytes(StandardCharsets.UTF_8);
        byte[] junk = {(byte) 0xFF, (byte) 0xFE, 0, 0, 'x', '\n'};
        Path f = dir.resolve("mixed.log");
        try (var out = Files.newOutputStream(f)) {
            out.write(junk);
            out.write(("A".repeat(10 * 1024 * 1024) + "\n").getBytes(StandardCharsets.US_ASCII));
            out.write(head);
        }
        SanitizerOutput out = parser.parse(f, null, records::add);
        assertThat(out.errorsTotal()).isEqualTo(1L);
        assertThat(records).hasSize(1);
        assertThat(out.problems()).anyMatch(p -> p.contains("over-long line"));
    }

    @Test
    void unterminatedLogOfAKilledTool() {
        SanitizerOutput out = parse("cpp-probe/kill/tool-term.log");
        assertThat(out.complete()).isFalse();
        assertThat(out.errorsTotal()).isNull();
        assertThat(records).isNotEmpty();
    }
}
