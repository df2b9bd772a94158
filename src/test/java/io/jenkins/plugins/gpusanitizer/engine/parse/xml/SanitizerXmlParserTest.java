package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** compute-sanitizer's --xml --save files; the contract cases run on far-oob/memcheck.xml (a torch job on the H200). */
class SanitizerXmlParserTest extends AbstractParserTest<ParsedOutput> {
    private final SanitizerXmlParser parser = new SanitizerXmlParser();
    private final List<SanitizerRecord> records = new ArrayList<>();

    SanitizerXmlParserTest() {
        super(Corpus.file("far-oob/memcheck.xml"));
    }

    @Override
    protected ParsedOutput parse(Path file) {
        List<SanitizerRecord> parsed = new ArrayList<>();
        return new ParsedOutput(new SanitizerXmlParser().parse(file, null, parsed::add), parsed);
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
        return Pattern.compile("<record>");
    }

    @Override
    protected String emptyFileProblem() {
        return "empty file, expected compute-sanitizer XML (--xml --save)";
    }

    @Override
    protected String foreignOutput() {
        return "<?xml version=\"1.0\"?><testsuite/>";
    }

    @Override
    protected String foreignProblem() {
        return "not compute-sanitizer XML (root element <testsuite>, expected <ComputeSanitizerOutput>)";
    }

    /** compute-sanitizer writes the file itself (--save): it is never re-encoded by a shell. */
    @Override
    protected boolean readsUtf16() {
        return false;
    }

    /** A cut XML keeps exactly its closed records and says where it was cut; it never has a summary. */
    @Override
    protected void assertCut(String prefix, ParsedOutput result, SoftAssertions softly) {
        if (prefix.contains("</ComputeSanitizerOutput>")) {
            return;
        }
        int closed = prefix.split("</record>", -1).length - 1;
        softly.assertThat(result.records())
                .as("cut after %d closed records", closed)
                .hasSize(closed);
        softly.assertThat(result.output().complete())
                .as("cut before the closing tag")
                .isFalse();
        softly.assertThat(result.output().errorsTotal())
                .as("an XML never has a summary")
                .isNull();
        softly.assertThat(result.output().problems())
                .as("cut after %d closed records", closed)
                .singleElement()
                .asString()
                .contains("cut off")
                .contains("after " + closed + " complete record(s)");
    }

    /** The far out-of-bounds write of a torch job: the 100 printed records, no summary. */
    @Override
    protected void assertThatRecordsArePresent(ParsedOutput result, SoftAssertions softly) {
        SanitizerOutput out = result.output();
        softly.assertThat(out.format()).isEqualTo("xml");
        softly.assertThat(out.tool()).isEqualTo(Tool.MEMCHECK);
        softly.assertThat(out.recordsParsed()).isEqualTo(100);
        softly.assertThat(out.errorsTotal()).as("the XML has no summary").isNull();
        softly.assertThat(out.complete()).isTrue();
        softly.assertThat(out.problems()).isEmpty();
        softly.assertThat(result.records()).hasSize(100).allSatisfy(r -> {
            assertThat(r.kind()).isEqualTo(Kind.OUT_OF_BOUNDS);
            assertThat(r.message()).isEqualTo("Invalid __global__ write of size 4 bytes");
            assertThat(r.kernel()).isEqualTo("scale_shift");
            assertThat(r.pc()).isEqualTo("0x160");
            assertThat(r.block()).isEqualTo("(3,0,0)");
        });
        SanitizerRecord r = result.get(0);
        softly.assertThat(r.thread()).isEqualTo("(96,0,0)");
        softly.assertThat(r.detail()).isEqualTo("Address 0x7f564080a980 is out of bounds");
        softly.assertThat(r.hostFrames().stream().filter(Frame::python).findFirst())
                .contains(Frame.python("buggy_scale", "/home/ci/workspace/lab/train_lstm.py", 32));
        softly.assertThat(r.hostFrames()).last().extracting(Frame::function).isEqualTo("<module>");
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
    void notXml() {
        // empty, missing and foreign XML: the contract cases of AbstractParserTest
        assertThatThrownBy(() -> parser.parse(Corpus.file("far-oob/memcheck.log"), null, records::add))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("memcheck.log: not compute-sanitizer XML");
    }

    @Test
    void billionLaughsAndExternalDtdAreNotExpanded(@TempDir Path dir) {
        String laughs = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
                + "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
                + "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">"
                + "<!ENTITY lol9 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">]>"
                + "<ComputeSanitizerOutput><record><kind>Api</kind><what><text>&lol9;</text></what></record></ComputeSanitizerOutput>";
        SanitizerOutput out = parser.parse(Corpus.write(dir, "laughs.xml", laughs), null, records::add);
        assertThat(records.stream()
                        .mapToInt(r -> String.valueOf(r.message()).length()
                                + String.valueOf(r.detail()).length())
                        .sum())
                .isLessThan(1000);
        assertThat(out.problems()).isNotEmpty();
        String dtd = "<?xml version=\"1.0\"?><!DOCTYPE ComputeSanitizerOutput SYSTEM \"http://127.0.0.1:9/evil.dtd\">"
                + "<ComputeSanitizerOutput></ComputeSanitizerOutput>";
        SanitizerOutput d = parser.parse(Corpus.write(dir, "dtd.xml", dtd), null, records::add);
        assertThat(d.problems()).anyMatch(p -> p.contains("DOCTYPE ignored"));
    }

    @Test
    void deeplyNestedElementsInsideARecordAreBounded(@TempDir Path dir) {
        int depth = 200_000;
        String xml = "<?xml version=\"1.0\"?><ComputeSanitizerOutput><record><kind>Api</kind>"
                + "<what><text>t</text><api>cudaMemcpy</api><error>cudaErrorInvalidValue</error></what>"
                + "<a>".repeat(depth) + "x" + "</a>".repeat(depth)
                + "</record></ComputeSanitizerOutput>";
        SanitizerOutput out = parser.parse(Corpus.write(dir, "deep.xml", xml), null, records::add);
        assertThat(out.complete()).isTrue();
        assertThat(records).singleElement().satisfies(r -> assertThat(r.kind()).isEqualTo(Kind.API_ERROR));
        records.clear();
        String unclosed = "<?xml version=\"1.0\"?><ComputeSanitizerOutput><record>" + "<a>".repeat(depth);
        SanitizerOutput cut = parser.parse(Corpus.write(dir, "deep-cut.xml", unclosed), null, records::add);
        assertThat(cut.complete()).isFalse();
        assertThat(records).isEmpty();
        assertThat(cut.problems()).singleElement().asString().contains("cut off");
    }
}
