package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.findings.Defect;
import io.jenkins.plugins.gpusanitizer.engine.findings.DefectGrouper;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * memcheck SIGKILLed on the H200 while it printed the records of one bad launch (examples/h200/capture-cut-log.sh,
 * records/h200-2026-12-05-cut-logs.zip.xz): the log ends after a whole line, twice inside a record (after "Saved host
 * backtrace ...", before any frame) and once between two. The record the kill cut off is the same error as the
 * records before it: one defect, as in the log of the same job not killed, not a second one without its line.
 */
class CutLogH200RecordTest {
    private static final String RECORD = "h200-2026-12-05-cut-logs/";

    /** The log's defects as the runner groups them, and its output; EVERY_LINE: as the parser read it before. */
    private record Parsed(List<Defect> defects, SanitizerOutput output) {}

    private static Parsed parse(Path log, boolean everyLine) throws IOException {
        DefectGrouper grouper = new DefectGrouper(GatePolicy.defaults().frameClassifier());
        SanitizerTextParser parser = new SanitizerTextParser();
        try (InputStream in = Files.newInputStream(log)) {
            List<SanitizerOutput> runs = everyLine
                    ? parser.parseEveryLine(in, log, null, i -> grouper)
                    : parser.parseRuns(in, log, null, i -> grouper);
            assertThat(runs).hasSize(1);
            return new Parsed(grouper.defects(), runs.get(0));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cut-150000.log", "cut-1000000.log"})
    void aRecordTheKillCutOffIsTheDefectOfTheRecordsBeforeIt(String name) throws IOException {
        Path log = Records.unpacked(RECORD + name);
        String text = Files.readString(log);
        assertThat(text).as("the tool wrote whole lines").endsWith("\n");
        assertThat(text.lines().reduce((a, b) -> b).orElseThrow())
                .as("the last line: the record has no host frame yet")
                .endsWith("Saved host backtrace up to driver entry point at kernel launch time");

        Parsed whole = parse(Records.unpacked(RECORD + "whole.log"), false);
        Parsed asRead = parse(log, true);
        Parsed now = parse(log, false);

        // the whole log's other two: follow-on API errors of the failed launch (cudaFree, cudaGetLastError), suppressed
        // later
        List<Defect> wholeKernel = whole.defects().stream()
                .filter(d -> "fused_scale".equals(d.kernel()))
                .toList();
        assertThat(wholeKernel).hasSize(1);
        assertThat(asRead.defects())
                .as("read as it was: the cut record a defect of its own, without the job's line")
                .hasSize(2)
                .anySatisfy(d -> assertThat(d.hostLocation()).isNull());
        assertThat(now.defects()).hasSize(1);
        Defect d = now.defects().get(0);
        assertThat(d.id()).isEqualTo(wholeKernel.get(0).id());
        assertThat(d.hostLocation().file()).endsWith("lstm_job.py");
        assertThat(d.hostLocation().line()).isEqualTo(63);
        assertThat(d.records()).isEqualTo(asRead.output().recordsParsed() - 1);
        assertThat(now.output().recordsParsed()).isEqualTo(d.records());
        assertThat(now.output().complete()).isFalse();
        assertThat(now.output().problems())
                .anySatisfy(p -> assertThat(p)
                        .startsWith("the last record was cut off (the tool stopped while writing it): the same error")
                        .contains("fused_scale"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"cut-400000.log"})
    void aKillBetweenTwoRecordsCutsNone(String name) throws IOException {
        Path log = Records.unpacked(RECORD + name);
        assertThat(Files.readString(log)).endsWith("\n========= \n");
        Parsed now = parse(log, false);
        assertThat(now.defects()).hasSize(1);
        assertThat(now.output().recordsParsed())
                .isEqualTo(parse(log, true).output().recordsParsed());
        assertThat(now.output().problems()).noneMatch(p -> p.contains("cut off"));
    }
}
