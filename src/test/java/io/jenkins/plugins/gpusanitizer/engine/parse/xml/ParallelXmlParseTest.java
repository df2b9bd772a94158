package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file read in pieces on several threads ({@link ParallelXmlParse}) gives exactly what one read from
 * start to end gives (the stream entry point, which never goes parallel): the records in order, the
 * counts, the problems with their line and column, the one-line error. Pieces are cut tiny here so that
 * every kind of cut is taken.
 */
class ParallelXmlParseTest {
    private static final int[] PIECE_BYTES = {1, 97, 1000, 4096, 1 << 20};

    @TempDir
    Path dir;

    /** What one parse gave: its output and records, or its one-line error. */
    private record Outcome(SanitizerOutput output, List<SanitizerRecord> records, String error) {}

    private static Outcome single(Path file) {
        return outcome(sink -> {
            try (InputStream in = Files.newInputStream(file)) {
                return new SanitizerXmlParser().parse(in, file, null, sink);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static Outcome inPieces(Path file, int threads, int pieceBytes) {
        return outcome(sink -> new SanitizerXmlParser(threads, pieceBytes, 0).parse(file, null, sink));
    }

    private static Outcome outcome(java.util.function.Function<Consumer<SanitizerRecord>, SanitizerOutput> parse) {
        List<SanitizerRecord> records = new ArrayList<>();
        try {
            return new Outcome(parse.apply(records::add), records, null);
        } catch (InputException e) {
            return new Outcome(null, records, e.getMessage());
        }
    }

    private static void assertAlike(Path file, int threads, int pieceBytes) {
        Outcome one = single(file);
        Outcome pieces = inPieces(file, threads, pieceBytes);
        assertThat(pieces.error()).as("%s in pieces of %d", file, pieceBytes).isEqualTo(one.error());
        assertThat(pieces.output()).as("%s in pieces of %d", file, pieceBytes).isEqualTo(one.output());
        assertThat(pieces.records()).as("%s in pieces of %d", file, pieceBytes).isEqualTo(one.records());
    }

    static List<Path> xmlFiles() {
        return Corpus.everyResourceFile().stream()
                .filter(p -> p.toString().endsWith(".xml"))
                .toList();
    }

    @Test
    void everyXmlFileReadsAlikeInPieces() throws IOException {
        List<Path> files = xmlFiles();
        assertThat(files).hasSizeGreaterThan(10);
        for (Path f : files) {
            for (int bytes : PIECE_BYTES) {
                assertAlike(f, 2, bytes);
            }
            assertAlike(f, 3, 1500);
        }
    }

    @Test
    void aFileCutAnywhereReadsAlikeInPieces() throws IOException {
        byte[] whole = Files.readAllBytes(Corpus.file("cpp-probe/kill/target-kill9.xml"));
        for (int cut = 1; cut < whole.length; cut += 1 + cut / 40) {
            Path f = Files.write(dir.resolve("cut.xml"), java.util.Arrays.copyOf(whole, cut));
            assertAlike(f, 2, 700);
        }
    }

    /** One small record, as compute-sanitizer indents it. */
    private static String record(int i) {
        return "  <record>\n    <kind>Api</kind>\n    <level>Error</level>\n    <what>\n      <text>t" + i
                + "</text>\n      <api>cudaMemcpy</api>\n      <error>cudaErrorInvalidValue</error>\n    </what>\n"
                + "    <hostStack>\n      <frame>\n        <func>f" + i + "</func>\n        <pc>0x1</pc>\n"
                + "      </frame>\n    </hostStack>\n  </record>\n";
    }

    private static String records(int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            sb.append(record(i));
        }
        return sb.toString();
    }

    private static final String HEAD = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<ComputeSanitizerOutput>\n";
    private static final String TAIL = "</ComputeSanitizerOutput>\n";

    /** Documents whose pieces are not all plain records: each must still read as it does in one piece. */
    @Test
    void whatIsNotPlainRecordsReadsAlike() throws IOException {
        List<String> docs = List.of(
                HEAD + records(0, 20) + TAIL,
                // record starts inside a comment and a CDATA section: the pieces cut there do not parse
                HEAD + records(0, 5) + "<!--\n" + records(5, 10) + "-->\n" + records(10, 15) + TAIL,
                HEAD + records(0, 5) + "<![CDATA[\n" + records(5, 10) + "]]>\n" + records(10, 15) + TAIL,
                HEAD + records(0, 5) + "<?pi\n" + records(5, 10) + "?>\n" + records(10, 15) + TAIL,
                HEAD + records(0, 5) + "<other>\n" + records(5, 10) + "</other>\n" + records(10, 15) + TAIL,
                HEAD + records(0, 5) + "  &ent;\n" + records(5, 10) + TAIL,
                HEAD + records(0, 5) + "  <record><kind>Api</kind><what><text>&x;</text></what></record>\n"
                        + records(5, 10) + TAIL,
                "<?xml version=\"1.0\"?>\n<!DOCTYPE ComputeSanitizerOutput>\n<ComputeSanitizerOutput>\n"
                        + records(0, 10) + TAIL,
                "\uFEFF" + HEAD + records(0, 10) + TAIL,
                "<ComputeSanitizerOutput>\n" + records(0, 10) + TAIL,
                HEAD.replace("utf-8", "ISO-8859-1") + records(0, 5).replace("t1<", "t\u00e91<") + TAIL,
                HEAD.replace("1.0", "1.1") + records(0, 10) + TAIL,
                HEAD + records(0, 10) + TAIL + "<!-- after -->\n",
                HEAD + records(0, 10) + TAIL + records(10, 12),
                HEAD + records(0, 10) + TAIL + "garbage\n",
                HEAD + records(0, 5) + "  <record><kind>Api</kind></wrong>\n" + records(5, 10) + TAIL,
                HEAD + records(0, 5) + "  </ComputeSanitizerOutput>\n" + records(5, 10) + TAIL,
                HEAD + records(0, 10).replace("\n", "\r\n") + TAIL,
                HEAD + records(0, 10).replace("\n", "\r") + TAIL,
                HEAD + records(0, 10),
                HEAD + records(0, 10) + "  <record>\n    <kind>Api",
                HEAD.replace("<ComputeSanitizerOutput>", "<testsuite>") + records(0, 10) + "</testsuite>\n",
                "garbage\n" + records(0, 10));
        for (String doc : docs) {
            Path f = Files.write(dir.resolve("doc.xml"), doc.getBytes(StandardCharsets.UTF_8));
            if (doc.contains("ISO-8859-1")) {
                f = Files.write(f, doc.getBytes(StandardCharsets.ISO_8859_1));
            }
            for (int bytes : new int[] {1, 50, 200, 333, 1000}) {
                assertAlike(f, 2, bytes);
            }
        }
    }

    @Test
    void aFailingSinkStopsTheReadAlike() throws IOException {
        Path f = Files.writeString(dir.resolve("doc.xml"), HEAD + records(0, 30) + TAIL);
        for (int failAt : new int[] {0, 1, 7, 29}) {
            List<SanitizerRecord> a = new ArrayList<>();
            List<SanitizerRecord> b = new ArrayList<>();
            SanitizerOutput one;
            try (InputStream in = Files.newInputStream(f)) {
                one = new SanitizerXmlParser().parse(in, f, null, failingAt(failAt, a));
            }
            SanitizerOutput pieces = new SanitizerXmlParser(2, 200, 0).parse(f, null, failingAt(failAt, b));
            assertThat(pieces).isEqualTo(one);
            assertThat(b).isEqualTo(a).hasSize(failAt);
            assertThat(one.problems()).singleElement().asString().contains("sink failed");
        }
    }

    private static Consumer<SanitizerRecord> failingAt(int n, List<SanitizerRecord> into) {
        return r -> {
            if (into.size() == n) {
                throw new IllegalStateException("sink failed");
            }
            into.add(r);
        };
    }

    @Test
    void aRecordLineIsFoundAfterANewline() throws IOException {
        String doc = HEAD + records(0, 3) + TAIL;
        Path f = Files.writeString(dir.resolve("doc.xml"), doc);
        try (FileChannel ch = FileChannel.open(f)) {
            ParallelXmlParse p = new ParallelXmlParse(null, ch, f, null, 2, 100);
            int first = doc.indexOf("  <record>");
            int second = doc.indexOf("  <record>", first + 1);
            assertThat(p.recordLineAfter(1)).isEqualTo(first);
            assertThat(p.recordLineAfter(first)).isEqualTo(first);
            assertThat(p.recordLineAfter(first + 1)).isEqualTo(second);
            assertThat(p.recordLineAfter(doc.lastIndexOf("<record>"))).isEqualTo(doc.length());
        }
    }

    @Test
    void onlyUtf8Xml10IsCutIntoPieces() {
        assertThat(ParallelXmlParse.plainUtf8Xml10(bytes(HEAD))).isTrue();
        assertThat(ParallelXmlParse.plainUtf8Xml10(bytes("<?xml version='1.0' encoding='UTF-8' standalone='yes'?><C>")))
                .isTrue();
        assertThat(ParallelXmlParse.plainUtf8Xml10(bytes("<?xml version=\"1.0\"?>\n<C>")))
                .isTrue();
        assertThat(ParallelXmlParse.plainUtf8Xml10(bytes("\uFEFF<C>"))).isTrue();
        assertThat(ParallelXmlParse.plainUtf8Xml10(bytes("<C>"))).isTrue();
        assertThat(ParallelXmlParse.plainUtf8Xml10(bytes("<?xml version=\"1.1\"?><C>")))
                .isFalse();
        assertThat(ParallelXmlParse.plainUtf8Xml10(bytes("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><C>")))
                .isFalse();
        assertThat(ParallelXmlParse.plainUtf8Xml10(HEAD.getBytes(StandardCharsets.UTF_16LE)))
                .isFalse();
        assertThat(ParallelXmlParse.plainUtf8Xml10(bytes(" <C>"))).isFalse();
        assertThat(ParallelXmlParse.plainUtf8Xml10(bytes("<?xml version=\"1.0\"")))
                .isFalse();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
