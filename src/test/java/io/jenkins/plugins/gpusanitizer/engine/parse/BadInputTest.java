package io.jenkins.plugins.gpusanitizer.engine.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bad-input corpus of docs/reliability.md: every case gives a clear one-line error or a correct
 * partial result flagged as partial — never an exception of another kind, never "complete".
 */
class BadInputTest {
    @TempDir
    Path dir;

    private final List<SanitizerRecord> records = new ArrayList<>();

    @Test
    void xmlCutAtEveryRecordBoundaryAndInsideEveryTagOfARecord() throws IOException {
        String xml = Files.readString(Corpus.file("cpp-probe/xml/s.xml"), StandardCharsets.UTF_8);
        int total = xml.split("<record>", -1).length - 1;
        List<Integer> cuts = new ArrayList<>();
        for (int i = xml.indexOf("<record>"); i >= 0; i = xml.indexOf("<record>", i + 1)) {
            cuts.add(i);
        }
        int second = xml.indexOf("<record>", xml.indexOf("<record>") + 1);
        int secondEnd = xml.indexOf("</record>", second) + "</record>".length();
        for (int i = second; i < secondEnd; i += 7) {
            cuts.add(i); // mid-tag, mid-text, between tags of the second record
        }
        for (int cut : cuts) {
            records.clear();
            SanitizerOutput out = new SanitizerXmlParser()
                    .parse(Corpus.write(dir, "cut.xml", xml.substring(0, cut)), null, records::add);
            int before = xml.substring(0, cut).split("</record>", -1).length - 1;
            assertThat(out.complete()).as("cut at " + cut).isFalse();
            assertThat(records).as("cut at " + cut).hasSize(before);
            assertThat(out.problems()).as("cut at " + cut).anyMatch(p -> p.contains("cut off"));
        }
        records.clear();
        assertThat(new SanitizerXmlParser()
                        .parse(Corpus.file("cpp-probe/xml/s.xml"), null, records::add)
                        .complete())
                .isTrue();
        assertThat(records).hasSize(total);
    }

    @Test
    void billionLaughsAndExternalDtdAreNotExpanded() throws IOException {
        String laughs = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
                + "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
                + "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">"
                + "<!ENTITY lol9 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">]>"
                + "<ComputeSanitizerOutput><record><kind>Api</kind><what><text>&lol9;</text></what></record></ComputeSanitizerOutput>";
        SanitizerOutput out =
                new SanitizerXmlParser().parse(Corpus.write(dir, "laughs.xml", laughs), null, records::add);
        assertThat(records.stream()
                        .mapToInt(r -> String.valueOf(r.message()).length()
                                + String.valueOf(r.detail()).length())
                        .sum())
                .isLessThan(1000);
        assertThat(out.problems()).isNotEmpty();
        String dtd = "<?xml version=\"1.0\"?><!DOCTYPE ComputeSanitizerOutput SYSTEM \"http://127.0.0.1:9/evil.dtd\">"
                + "<ComputeSanitizerOutput></ComputeSanitizerOutput>";
        SanitizerOutput d = new SanitizerXmlParser().parse(Corpus.write(dir, "dtd.xml", dtd), null, records::add);
        assertThat(d.problems()).anyMatch(p -> p.contains("DOCTYPE ignored"));
    }

    @Test
    void nulBytesInvalidUtf8AndATenMegabyteLine() throws IOException {
        byte[] head = Corpus.textRun("mc-apierr").getBytes(StandardCharsets.UTF_8);
        byte[] junk = {(byte) 0xFF, (byte) 0xFE, 0, 0, 'x', '\n'};
        Path f = dir.resolve("mixed.log");
        try (var out = Files.newOutputStream(f)) {
            out.write(junk);
            out.write(("A".repeat(10 * 1024 * 1024) + "\n").getBytes(StandardCharsets.US_ASCII));
            out.write(head);
        }
        SanitizerOutput out = new SanitizerTextParser().parse(f, null, records::add);
        assertThat(out.errorsTotal()).isEqualTo(1L);
        assertThat(records).hasSize(1);
        assertThat(out.problems()).anyMatch(p -> p.contains("over-long line"));
    }

    @Test
    void anotherToolsOutputIsNotASanitizerLog() {
        String valgrind =
                "==1234== Memcheck, a memory error detector\n==1234== Invalid write of size 4\n==1234==    at 0x4005: main (a.c:5)\n"
                        + "==1234== ERROR SUMMARY: 1 errors from 1 contexts\n";
        assertThatThrownBy(() -> new SanitizerTextParser()
                        .parse(Corpus.write(dir, "valgrind.log", valgrind), null, records::add))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("not compute-sanitizer text output");
        assertThatThrownBy(() -> new SanitizerXmlParser()
                        .parse(Corpus.write(dir, "junit.xml", "<testsuite/>"), null, records::add))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("expected <ComputeSanitizerOutput>");
        assertThatThrownBy(() -> new MemoryCsvParser().parse(Corpus.file("far-oob/memcheck.log")))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("not an nvidia-smi memory CSV");
    }

    @Test
    void unterminatedLogOfAKilledTool() {
        SanitizerOutput out =
                new SanitizerTextParser().parse(Corpus.file("cpp-probe/kill/tool-term.log"), null, records::add);
        assertThat(out.complete()).isFalse();
        assertThat(out.errorsTotal()).isNull();
        assertThat(records).isNotEmpty();
    }
}
