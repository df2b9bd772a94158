package io.jenkins.plugins.gpusanitizer.engine.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SanitizerXmlParserTest {
    private final SanitizerXmlParser parser = new SanitizerXmlParser();
    private final List<SanitizerRecord> records = new ArrayList<>();

    @Test
    void farOutOfBoundsXmlHoldsThePrintedRecordsOnly() {
        SanitizerOutput out = parser.parse(Corpus.file("far-oob/memcheck.xml"), null, records::add);
        assertThat(out.format()).isEqualTo("xml");
        assertThat(out.recordsParsed()).isEqualTo(100);
        assertThat(out.errorsTotal()).as("the XML has no summary").isNull();
        assertThat(out.complete()).isTrue();
        assertThat(out.problems()).isEmpty();
        SanitizerRecord r = records.get(0);
        assertThat(r.kind()).isEqualTo(Kind.OUT_OF_BOUNDS);
        assertThat(r.message()).isEqualTo("Invalid __global__ write of size 4 bytes");
        assertThat(r.kernel()).isEqualTo("scale_shift");
        assertThat(r.pc()).isEqualTo("0x160");
        assertThat(r.thread()).isEqualTo("(96,0,0)");
        assertThat(r.block()).isEqualTo("(3,0,0)");
        assertThat(r.detail()).isEqualTo("Address 0x7f564080a980 is out of bounds");
        assertThat(r.hostFrames().stream().filter(Frame::python).findFirst().orElseThrow())
                .isEqualTo(Frame.python("buggy_scale", "/home/ci/workspace/lab/train_lstm.py", 32));
        assertThat(r.hostFrames().get(r.hostFrames().size() - 1).function()).isEqualTo("<module>");
    }

    @Test
    void nearOutOfBoundsXmlHasAccessAndApiRecords() {
        parser.parse(Corpus.file("near-oob/memcheck-nocache.xml"), null, records::add);
        assertThat(records).hasSize(66);
        assertThat(records.stream().filter(r -> r.kind() == Kind.API_ERROR).map(SanitizerRecord::message))
                .containsExactly(
                        "cudaErrorLaunchFailure on CUDA API call to cudaFree",
                        "cudaErrorLaunchFailure on CUDA API call to cudaGetLastError");
    }

    @Test
    void recordKindsOf2025() {
        parser.parse(Corpus.file("cpp-probe/xml/d.xml"), null, records::add);
        assertThat(records).extracting(SanitizerRecord::kind).containsExactly(Kind.LEAK, Kind.LEAK);
        assertThat(records.get(1).detail()).isEqualTo("Leaked 4096 bytes");
        records.clear();
        parser.parse(Corpus.file("cpp-probe/xml/e.xml"), null, records::add);
        assertThat(records).singleElement().satisfies(r -> {
            assertThat(r.kind()).isEqualTo(Kind.API_ERROR);
            assertThat(r.message()).isEqualTo("cudaErrorInvalidValue on CUDA API call to cudaMemcpy");
        });
        records.clear();
        parser.parse(Corpus.file("cpp-probe/xml/g.xml"), null, records::add);
        assertThat(records.get(0).kind()).isEqualTo(Kind.MISALIGNED);
        assertThat(records.get(0).deviceLocation().file()).isEqualTo("/home/ci/workspace/probe/oob.cu");
        assertThat(records.get(0).deviceLocation().line()).isEqualTo(14);
        records.clear();
        SanitizerOutput sync = parser.parse(Corpus.file("cpp-probe/xml/s.xml"), null, records::add);
        assertThat(sync.tool()).isEqualTo(Tool.SYNCCHECK);
        assertThat(records)
                .hasSize(16)
                .allMatch(r -> r.kind() == Kind.BARRIER_ERROR
                        && r.message().equals("Barrier error detected. Divergent thread(s) in warp"));
    }

    @Test
    void killedTargetStillLetTheToolWriteACompleteXml() {
        SanitizerOutput out = parser.parse(Corpus.file("cpp-probe/kill/target-kill9.xml"), null, records::add);
        assertThat(out.complete()).isTrue();
        assertThat(out.recordsParsed()).isGreaterThan(0);
    }

    @Test
    void fileCutMidRecordKeepsTheCompleteRecords(@TempDir Path dir) throws IOException {
        String xml = Files.readString(Corpus.file("far-oob/memcheck.xml"), StandardCharsets.UTF_8);
        int third = xml.indexOf("<record>", xml.indexOf("<record>", xml.indexOf("<record>") + 1) + 1);
        for (int cut : new int[] {third + 3, third + 200, xml.indexOf("</record>", third) + 4}) {
            records.clear();
            Path f = Corpus.write(dir, "cut.xml", xml.substring(0, cut));
            SanitizerOutput out = parser.parse(f, null, records::add);
            assertThat(out.complete()).isFalse();
            assertThat(records).hasSize(2);
            assertThat(out.problems()).singleElement().asString().contains("after 2 complete record(s)");
        }
        records.clear();
        SanitizerOutput atBoundary =
                parser.parse(Corpus.write(dir, "b.xml", xml.substring(0, third)), null, records::add);
        assertThat(atBoundary.complete()).isFalse();
        assertThat(records).hasSize(2);
    }

    @Test
    void externalEntitiesAreNeverResolved(@TempDir Path dir) throws IOException {
        Path secret = Corpus.write(dir, "secret.txt", "TOP-SECRET");
        String xxe = "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM \"" + secret.toUri() + "\">]>\n"
                + "<ComputeSanitizerOutput><record><kind>Api</kind><what><text>&x;</text><api>&x;</api><error>e</error></what></record></ComputeSanitizerOutput>";
        parser.parse(Corpus.write(dir, "xxe.xml", xxe), null, records::add);
        assertThat(records)
                .allSatisfy(r ->
                        assertThat(String.valueOf(r.message()) + r.detail()).doesNotContain("TOP-SECRET"));
    }

    @Test
    void notXml(@TempDir Path dir) {
        assertThatThrownBy(() -> parser.parse(Corpus.file("far-oob/memcheck.log"), null, records::add))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("memcheck.log: not compute-sanitizer XML");
        assertThatThrownBy(() -> parser.parse(
                        Corpus.write(dir, "other.xml", "<?xml version=\"1.0\"?><testsuite/>"), null, records::add))
                .isInstanceOf(InputException.class)
                .hasMessageEndingWith("root element <testsuite>, expected <ComputeSanitizerOutput>)");
        assertThatThrownBy(() -> parser.parse(Corpus.write(dir, "empty.xml", ""), null, records::add))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("empty file");
    }
}
