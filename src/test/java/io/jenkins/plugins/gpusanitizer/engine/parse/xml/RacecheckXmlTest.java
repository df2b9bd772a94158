package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** racecheck's two XML record shapes, recorded on the H200 (corpus/h200-2026-12-03/racecheck/README.md). */
class RacecheckXmlTest {
    private final List<SanitizerRecord> records = new ArrayList<>();

    private static Path file(String name) {
        return Corpus.h200Dec03("racecheck/" + name);
    }

    @Test
    void analysisRecordsHaveTheirKernelFromTheSourceAccess() {
        SanitizerOutput out = new SanitizerXmlParser().parse(file("sanitizer.xml"), null, records::add);
        assertThat(out.tool()).isEqualTo(Tool.RACECHECK);
        assertThat(records).hasSize(3).allSatisfy(r -> {
            assertThat(r.kind()).isEqualTo(Kind.RACE);
            assertThat(r.kernel()).isEqualTo("row_sumsq");
            assertThat(r.pc()).isEqualTo("0x200");
            assertThat(r.message()).isEqualTo("Race reported between Write and Read accesses");
            assertThat(r.detail()).contains("Write at row_sumsq+0x200 -> Read at row_sumsq+0x270 (16384 hazards)");
            assertThat(r.severityError()).isTrue();
            assertThat(r.hostFrames()).isEmpty();
        });
    }

    @Test
    void textAndXmlOfTheSameRacecheckRunAgreeOnTheMessage() {
        List<SanitizerRecord> text = new ArrayList<>();
        new SanitizerTextParser().parse(file("sanitizer.log"), null, text::add);
        new SanitizerXmlParser().parse(file("sanitizer.xml"), null, records::add);
        assertThat(text).hasSize(3);
        assertThat(text.get(0).message()).isEqualTo(records.get(0).message());
        assertThat(text.get(0).kernel()).isEqualTo("row_sumsq");
    }

    @Test
    void hazardRecordsCarryTheAccessPairAndTheLaunchSite() {
        new SanitizerXmlParser().parse(file("hazard-first3.xml"), null, records::add);
        assertThat(records).hasSize(3).allSatisfy(r -> {
            assertThat(r.tool()).isEqualTo(Tool.RACECHECK);
            assertThat(r.kernel()).isEqualTo("row_sumsq");
            assertThat(r.detail()).startsWith("RAW: Write at row_sumsq+0x200 -> Read at row_sumsq+0x270");
            assertThat(r.pythonFrames()).anySatisfy(f -> assertThat(f.file()).endsWith("racecheck_job.py"));
        });
    }
}
