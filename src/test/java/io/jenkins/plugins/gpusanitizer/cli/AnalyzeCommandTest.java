package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every case of corpus/h200/MANIFEST.md through the CLI, with the report checked field by field. */
class AnalyzeCommandTest {
    @TempDir
    Path dir;

    private static String f(String corpus) {
        return Corpus.file(corpus).toString();
    }

    private JsonNode analyze(int expectedExit, String... args) {
        Path json = dir.resolve("report.json");
        List<String> all = new ArrayList<>(List.of(
                "analyze",
                "--json",
                json.toString(),
                "--html",
                dir.resolve("report.html").toString()));
        all.addAll(List.of(args));
        CliRunner r = CliRunner.run(all.toArray(String[]::new));
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(expectedExit);
        assertThat(r.err()).isEmpty();
        return CliRunner.json(json);
    }

    private static List<JsonNode> open(JsonNode report) {
        return StreamSupport.stream(report.get("defects").spliterator(), false)
                .filter(d -> !d.get("suppressed").asBoolean())
                .toList();
    }

    @Test
    void farOutOfBoundsAllPhases() throws Exception {
        JsonNode r = analyze(
                1,
                "--sanitizer-log",
                f("far-oob/memcheck.log"),
                "--sanitizer-xml",
                f("far-oob/memcheck.xml"),
                "--async-log",
                f("far-oob/async.stderr"),
                "--blocking-log",
                f("far-oob/blocking.stderr"),
                "--caching-allocator",
                "off");
        assertThat(r.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(r.get("errorsTotal").asLong()).isEqualTo(1603);
        List<JsonNode> defects = open(r);
        assertThat(defects).hasSize(1);
        JsonNode d = defects.get(0);
        assertThat(d.get("tool").asText()).isEqualTo("memcheck");
        assertThat(d.get("kind").asText()).isEqualTo("out-of-bounds");
        assertThat(d.get("kernel").asText()).isEqualTo("scale_shift");
        assertThat(d.get("records").asLong()).isEqualTo(100);
        assertThat(d.get("deviceLocation").isNull()).isTrue();
        assertThat(d.get("hostLocation").get("file").asText()).endsWith("train_lstm.py");
        assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(32);
        assertThat(d.get("hostLocation").get("function").asText()).isEqualTo("buggy_scale");
        JsonNode diag = r.get("diagnosis");
        assertThat(diag.get("reportedAt").get("file").asText()).endsWith("train_lstm.py");
        assertThat(diag.get("reportedAt").get("line").asInt()).isEqualTo(99);
        assertThat(diag.get("faultAt").get("line").asInt()).isEqualTo(32);
        assertThat(diag.get("faultEvidence").asText()).isEqualTo("blocking+sanitizer");
        assertThat(diag.get("summary").asText()).contains("train_lstm.py:99", "train_lstm.py:32 in buggy_scale");
        assertThat(r.get("sanitizerRuns").get(0).get("recordsFrom").asText()).isEqualTo("xml");
        assertThat(r.get("sanitizerRuns").get(0).get("errorsNotPrinted").asLong())
                .isEqualTo(1503);
        assertThat(Files.readString(dir.resolve("report.html"))).contains("FAIL", "scale_shift", "buggy_scale");
    }

    @Test
    void farOutOfBoundsFromTextAloneAndFromXmlAloneIsTheSameDefect() {
        JsonNode text = analyze(1, "--sanitizer-log", f("far-oob/memcheck.log"));
        JsonNode xml = analyze(1, "--sanitizer-xml", f("far-oob/memcheck.xml"));
        assertThat(open(xml).get(0).get("id")).isEqualTo(open(text).get(0).get("id"));
        assertThat(xml.get("errorsTotal").isNull()).as("the XML has no summary").isTrue();
        assertThat(xml.get("reasons").toString()).contains("total error count is unknown");
    }

    @Test
    void nearOutOfBoundsFailsWithoutCachingAllocator() {
        JsonNode r = analyze(
                1,
                "--sanitizer-log",
                f("near-oob/memcheck-nocache.log"),
                "--sanitizer-xml",
                f("near-oob/memcheck-nocache.xml"),
                "--caching-allocator",
                "off");
        assertThat(r.get("errorsTotal").asLong()).isEqualTo(66);
        assertThat(open(r)).singleElement().satisfies(d -> {
            assertThat(d.get("kernel").asText()).isEqualTo("scale_shift");
            assertThat(d.get("records").asLong()).isEqualTo(64);
            assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(32);
        });
        List<JsonNode> suppressed = StreamSupport.stream(r.get("defects").spliterator(), false)
                .filter(d -> d.get("suppressed").asBoolean())
                .toList();
        assertThat(suppressed)
                .hasSize(2)
                .allSatisfy(d ->
                        assertThat(d.get("suppressedBy").get("rule").asText()).isEqualTo("follow-on-api-error"));
        assertThat(r.get("diagnosis").get("faultAt").get("line").asInt()).isEqualTo(32);
    }

    @Test
    void nearOutOfBoundsUnderCachingAllocatorPassesWithAWarning() {
        JsonNode r = analyze(
                0, "--sanitizer-log", f("near-oob/memcheck-caching-allocator.log"), "--caching-allocator", "on");
        assertThat(r.get("verdict").asText()).isEqualTo("PASS");
        assertThat(r.get("errorsTotal").asLong()).isZero();
        assertThat(r.get("reasons").toString()).contains("caching-allocator", "PYTORCH_NO_CUDA_MEMORY_CACHING=1");
        assertThat(r.get("diagnosis").get("notes").toString())
                .contains("small out-of-bounds accesses were not checkable");
    }

    @Test
    void toolFailuresAreErrorsNeverPasses() {
        for (String log : List.of(
                "tool-errors/missing-script.log",
                "tool-errors/no-cuda-app.log",
                "tool-errors/xml-without-save.stderr")) {
            JsonNode r = analyze(3, "--sanitizer-log", f(log));
            assertThat(r.get("verdict").asText()).isEqualTo("ERROR");
            assertThat(r.get("reasons").get(0).get("code").asText()).isEqualTo("tool-failure");
        }
    }

    @Test
    void leakCheckCrashIsAnErrorNotAPassAndNotTheKernelsFault() {
        JsonNode r = analyze(3, "--sanitizer-log", f("leakcheck-crash/memcheck-leakcheck.log"));
        assertThat(r.get("errorsTotal").asLong()).isZero();
        assertThat(r.get("defects")).isEmpty();
        assertThat(r.get("reasons").toString()).contains("tool-induced crash");
    }

    @Test
    void killedToolIsAnError() {
        JsonNode r = analyze(1, "--sanitizer-log", f("cpp-probe/kill/tool-kill9.log"));
        // the records printed before the kill are real bugs: FAIL, with the incomplete run named too
        assertThat(r.get("reasons").toString()).contains("no ERROR SUMMARY", "did not finish");
    }

    @Test
    void memoryCurves() {
        JsonNode leak = analyze(2, "--memory-csv", f("curves/leak.nvidia-smi.csv"));
        assertThat(leak.get("memory").get(0).get("shape").asText()).isEqualTo("growing");
        assertThat(leak.get("memory").get(0).get("growthMiBPerMin").asDouble()).isBetween(60_000.0, 80_000.0);
        JsonNode frag = analyze(
                0,
                "--memory-csv",
                f("curves/frag.nvidia-smi.csv"),
                "--memory-csv-expandable",
                f("curves/frag-expandable.nvidia-smi.csv"));
        assertThat(frag.get("memory").get(0).get("peakMiB").asDouble()).isEqualTo(2425);
        assertThat(frag.get("memory").get(1).get("peakMiB").asDouble()).isEqualTo(1093);
        assertThat(frag.get("diagnosis").get("notes").toString())
                .contains("expandable_segments cut the peak from 2425 to 1093 MiB (-55%)");
        JsonNode clean = analyze(0, "--memory-csv", f("curves/clean.nvidia-smi.csv"));
        assertThat(clean.get("memory").get(0).get("shape").asText()).isEqualTo("stable");
        assertThat(clean.get("memory").get(0).get("peakMiB").asDouble()).isEqualTo(853);
    }

    private static String issue11(String name) {
        return Corpus.resource("/memory-curves/issue-11/" + name + ".nvidia-smi.csv")
                .toString();
    }

    /** Issue #11 (a): 825 to 853 MiB in 2 MiB steps over 18 s fills the H200 in ~25 h: within a week. */
    @Test
    void slowLeakIsUnstableWithItsTimeToFull() {
        JsonNode r = analyze(2, "--memory-csv", issue11("leak-logits"));
        JsonNode m = r.get("memory").get(0);
        assertThat(m.get("shape").asText()).isEqualTo("growing");
        assertThat(m.get("growthMiBPerMin").asDouble()).isBetween(85.0, 105.0);
        assertThat(m.get("trendMiBPerMin").asDouble())
                .isEqualTo(m.get("growthMiBPerMin").asDouble());
        assertThat(m.get("hoursToFull").asDouble()).isBetween(22.0, 28.0);
        assertThat(m.get("memoryTotalMiB").asDouble()).isEqualTo(143771);
        assertThat(m.get("judgedFromSeconds").asDouble()).isBetween(4.0, 8.0);
        assertThat(m.get("judgedToSeconds").asDouble()).isBetween(21.0, 22.5);
        assertThat(m.get("policy").get("fillHorizonHours").asDouble()).isEqualTo(168);
        assertThat(m.get("policy").get("minJudgedSeconds").asDouble()).isEqualTo(10);
        assertThat(r.get("reasons").toString())
                .contains("memory-growth", "grows 96 MiB/min", "full in 25 h, within the fill horizon of 7 days");
        assertThat(dir.resolve("report.html"))
                .content()
                .contains("class=\"gs-judged\"", "judged 7.2–22.1 s", "full in 25 h at that rate");
        // a shorter horizon: the same growth is reported, not acted on
        JsonNode day = analyze(0, "--memory-csv", issue11("leak-logits"), "--memory-fill-horizon", "12h");
        assertThat(day.get("memory")
                        .get(0)
                        .get("policy")
                        .get("fillHorizonHours")
                        .asDouble())
                .isEqualTo(12);
        assertThat(day.get("reasons").toString())
                .contains("memory-growth-slow", "beyond the fill horizon of 12 h")
                .doesNotContain("\"unstable\"");
        analyze(2, "--memory-csv", issue11("leak-logits"), "--memory-fill-horizon", "2d");
        analyze(0, "--memory-csv", issue11("leak-logits"), "--memory-growth-action", "ignore");
    }

    /** Issue #11 (b): cuDNN autotuning in the last second of a 10 s job is not a leak. */
    @Test
    void autotuningAtTheEndOfAShortRunIsNotJudged() {
        JsonNode r = analyze(0, "--memory-csv", issue11("cudnn-bench"));
        JsonNode m = r.get("memory").get(0);
        assertThat(m.get("shape").asText()).isEqualTo("unknown");
        assertThat(m.get("growthMiBPerMin").asDouble()).isZero();
        assertThat(m.get("hoursToFull").isNull()).isTrue();
        assertThat(m.get("description").asText()).startsWith("too short to judge");
        assertThat(r.get("reasons").toString()).doesNotContain("memory-growth");
        JsonNode judged = analyze(0, "--memory-csv", issue11("cudnn-bench"), "--memory-min-judged", "0");
        assertThat(judged.get("memory").get(0).get("shape").asText()).isEqualTo("stable");
        assertThat(judged.get("memory").get(0).get("lateRiseMiB").asDouble()).isEqualTo(272);
    }

    /** The same two jobs on the real H200 (corpus/h200-2026-12-03). */
    @Test
    void realIssue11CurvesFromTheH200() {
        JsonNode leak = analyze(
                2,
                "--memory-csv",
                Corpus.resource("/corpus/h200-2026-12-03/curves/leak-logits.nvidia-smi.csv")
                        .toString());
        assertThat(leak.get("memory").get(0).get("growthMiBPerMin").asDouble()).isBetween(90.0, 110.0);
        assertThat(leak.get("memory").get(0).get("hoursToFull").asDouble()).isBetween(22.0, 26.0);
        JsonNode cudnn = analyze(
                0,
                "--memory-csv",
                Corpus.resource("/corpus/h200-2026-12-03/curves/cudnn-bench.nvidia-smi.csv")
                        .toString());
        assertThat(cudnn.get("memory").get(0).get("shape").asText()).isEqualTo("unknown");
        assertThat(cudnn.get("reasons").toString()).doesNotContain("memory-growth");
    }

    @Test
    void memoryPolicyOptionsAreChecked() {
        for (String[] bad : new String[][] {
            {"--memory-fill-horizon", "0"},
            {"--memory-fill-horizon", "7x"},
            {"--memory-fill-horizon", "-1d"},
            {"--memory-min-judged", "-5"}
        }) {
            CliRunner r = CliRunner.run("analyze", "--memory-csv", issue11("cudnn-bench"), bad[0], bad[1]);
            assertThat(r.exit()).as(String.join(" ", bad)).isEqualTo(64);
            assertThat(r.err()).contains(bad[0]);
        }
    }

    @Test
    void outOfMemoryIsUnstableWithItsNumbers() {
        JsonNode r = analyze(2, "--async-log", f("oom/async.stderr"));
        JsonNode oom = r.get("failures").get(0).get("oom");
        assertThat(oom.get("triedBytes").asLong()).isEqualTo(Math.round(372.53 * (1L << 30)));
        assertThat(r.get("diagnosis").get("summary").asText())
                .isEqualTo(
                        "The job failed at train_lstm.py:97 (`torch.empty(int(400e9), dtype=torch.uint8, device=dev)`).");
    }

    @Test
    void asyncAloneBlamesTheInnocentLineAndSaysSo() {
        JsonNode r = analyze(1, "--async-log", f("far-oob/dsa.stderr"));
        assertThat(r.get("diagnosis").get("reportedAt").get("line").asInt()).isEqualTo(99);
        assertThat(r.get("diagnosis").get("faultAt").isNull()).isTrue();
        assertThat(r.get("diagnosis").get("summary").asText()).contains("may be innocent");
    }

    @Test
    void cppProbeRacecheckFailsAndInitcheckIsUnstable() throws Exception {
        Path race = Corpus.write(dir, "race.log", Corpus.textRun("rc-race"));
        assertThat(analyze(1, "--sanitizer-log", race.toString())
                        .get("defects")
                        .get(0)
                        .get("tool")
                        .asText())
                .isEqualTo("racecheck");
        Path init = Corpus.write(dir, "init.log", Corpus.textRun("ic-uninit"));
        JsonNode r = analyze(2, "--sanitizer-log", init.toString());
        assertThat(r.get("defects").get(0).get("deviceLocation").get("line").asInt())
                .isEqualTo(23);
        assertThat(analyze(1, "--tool-action", "initcheck=fail", "--sanitizer-log", init.toString())
                        .get("verdict")
                        .asText())
                .isEqualTo("FAIL");
    }

    @Test
    void userSuppressionTurnsAFailIntoAPassButKeepsTheDefectListed() {
        JsonNode r = analyze(
                0,
                "--sanitizer-log",
                f("near-oob/memcheck-nocache.log"),
                "--caching-allocator",
                "off",
                "--suppress",
                "id=known-bug;kernel=^scale_shift$;reason=tracked in BUG-1");
        JsonNode d = r.get("defects").get(0);
        assertThat(d.get("suppressedBy").get("rule").asText()).isEqualTo("known-bug");
        assertThat(d.get("suppressedBy").get("reason").asText()).isEqualTo("tracked in BUG-1");
    }

    @Test
    void suppressingEveryPrintedRecordDoesNotVouchForTheUnprintedOnes() {
        // far-oob printed 100 of 1603 errors: with those suppressed, 1503 were never seen
        JsonNode r = analyze(
                2,
                "--sanitizer-log",
                f("far-oob/memcheck.log"),
                "--caching-allocator",
                "off",
                "--suppress",
                "kernel=^scale_shift$");
        assertThat(r.get("reasons").toString()).contains("unprinted-unchecked", "1503 error(s) were not printed");
    }

    @Test
    void badInputIsOneLineAndExit3() {
        CliRunner r = CliRunner.run("analyze", "--sanitizer-log", f("MANIFEST.md"));
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.err().strip()).doesNotContain("\n").contains("MANIFEST.md: not compute-sanitizer text output");
        CliRunner xml = CliRunner.run("analyze", "--sanitizer-xml", f("far-oob/memcheck.log"));
        assertThat(xml.exit()).isEqualTo(3);
        assertThat(xml.err().strip()).doesNotContain("\n").doesNotContain("Exception");
        CliRunner missing =
                CliRunner.run("analyze", "--memory-csv", dir.resolve("nope.csv").toString());
        assertThat(missing.err().strip()).endsWith("nope.csv: no such file");
    }

    @Test
    void usageErrorsExit64() {
        assertThat(CliRunner.run("analyze").exit()).isEqualTo(64);
        assertThat(CliRunner.run("analyze", "--bogus").exit()).isEqualTo(64);
        assertThat(CliRunner.run("analyze", "--caching-allocator", "maybe", "--async-log", "x")
                        .exit())
                .isEqualTo(64);
        assertThat(CliRunner.run("analyze", "--suppress", "kernel=(", "--async-log", "x")
                        .err())
                .contains("bad regex for kernel");
        assertThat(CliRunner.run().exit()).isEqualTo(64);
    }
}
