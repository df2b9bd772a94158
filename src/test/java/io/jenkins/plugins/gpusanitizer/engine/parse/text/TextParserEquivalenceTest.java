package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The parser that reads lines as bytes, in chunks, on two threads gives what the line-by-line parser
 * gave ({@link LineByLineTextParser}, the code before): the same runs, the same records in the same
 * order, the same problems or the same error, on every text fixture, on variants of each that take
 * the careful paths (CRLF, lone CR, ESC, NUL, tabs, non-ASCII and malformed bytes, over-long lines,
 * cut anywhere), on random mutations, and on inputs large enough to be read ahead in many chunks.
 *
 * <p>Every line as read ({@link SanitizerTextParser#parseEveryLine}): what the parser then leaves out, a last
 * record line the tool did not finish, {@link UnfinishedLineTest} holds.
 */
class TextParserEquivalenceTest {

    /** What one parser gave: each run's output and records, or the error. */
    private record Result(List<SanitizerOutput> outputs, List<List<SanitizerRecord>> records, String error) {}

    private interface Parse {
        List<SanitizerOutput> runs(
                InputStream in,
                Path name,
                java.util.function.IntFunction<java.util.function.Consumer<SanitizerRecord>> sinks)
                throws IOException;
    }

    private static Result run(Parse p, byte[] bytes, int readSize) {
        List<List<SanitizerRecord>> records = new ArrayList<>();
        InputStream in = new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, readSize));
            }
        };
        try {
            List<SanitizerOutput> outs = p.runs(in, Path.of("fixture.log"), i -> {
                while (records.size() <= i) {
                    records.add(new ArrayList<>());
                }
                return records.get(i)::add;
            });
            return new Result(outs, records, null);
        } catch (InputException e) {
            return new Result(null, records, e.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertSame(String what, byte[] bytes) {
        assertSame(what, bytes, Integer.MAX_VALUE);
    }

    private static void assertSame(String what, byte[] bytes, int readSize) {
        Result before =
                run((in, name, sinks) -> new LineByLineTextParser().parseRuns(in, name, null, sinks), bytes, 1 << 16);
        Result after = run(
                (in, name, sinks) -> new SanitizerTextParser().parseEveryLine(in, name, null, sinks), bytes, readSize);
        assertThat(after.error()).as(what).isEqualTo(before.error());
        assertThat(after.outputs()).as(what).isEqualTo(before.outputs());
        assertThat(after.records()).as(what).hasSameSizeAs(before.records());
        for (int i = 0; i < before.records().size(); i++) {
            // element by element: a failure names the first record that differs
            List<SanitizerRecord> a = after.records().get(i);
            List<SanitizerRecord> b = before.records().get(i);
            assertThat(a).as(what + " run " + i).hasSameSizeAs(b);
            for (int k = 0; k < b.size(); k++) {
                assertThat(a.get(k)).as(what + " run " + i + " record " + k).isEqualTo(b.get(k));
                assertThat(a.get(k).pythonFrames()).as(what).isEqualTo(b.get(k).pythonFrames());
            }
        }
    }

    /**
     * Every file of the test resources the text parser may be given (most are not its input: the same error),
     * the packed corpus folders' (corpus/NAME.zip.xz) included.
     */
    static List<Path> fixtures() {
        return Corpus.everyResourceFile().stream()
                .filter(f -> f.toString().matches(".*\\.(log|txt|stderr|stdout)$")
                        || f.toString().contains("ParserFuzzTestInputs/text"))
                .toList();
    }

    /**
     * Over-long lines one variant of {@link #everyFixtureAndItsVariantsParseAsBefore} holds at most. The
     * bound binds on the six largest logs only: far-oob/memcheck.log's every 7th frame line of its
     * 30-frame records meets each of the 30 frame positions twice within 64 lines; its 366 more took the
     * same paths again at 70 KB each. Unbounded, these lines were 98 of the 120 MB the test parsed twice
     * (issue #27).
     */
    private static final int LONG_LINES = 64;

    private static String replaceEvery(String s, String what, String with, int nth) {
        return replaceEvery(s, what, with, nth, Integer.MAX_VALUE);
    }

    /** Every {@code nth} {@code what} (the first included) becomes {@code with}, at most {@code max} of them. */
    private static String replaceEvery(String s, String what, String with, int nth, int max) {
        StringBuilder sb = new StringBuilder();
        int from = 0;
        int count = 0;
        int at;
        while ((at = s.indexOf(what, from)) >= 0) {
            boolean replace = count % nth == 0 && count / nth < max;
            count++;
            sb.append(s, from, at).append(replace ? with : what);
            from = at + what.length();
        }
        return sb.append(s.substring(from)).toString();
    }

    /**
     * The fixture as it is and changed to take each careful path of the parser.
     *
     * @param longLines the most over-long lines each of the two over-long-line variants holds
     */
    private static List<byte[]> variants(byte[] b, int longLines) {
        String s = new String(b, StandardCharsets.ISO_8859_1);
        List<String> v = new ArrayList<>();
        v.add(s);
        v.add(s.replace("\n", "\r\n"));
        v.add(s.replace("\n", "\r"));
        v.add(replaceEvery(s, "Host Frame:", "\u001b[1mHost Frame:", 3));
        v.add(replaceEvery(s, "] in ", "] in \u001b[0m", 4));
        v.add(replaceEvery(s, "Host Frame:", "Host Frame:\0", 5));
        v.add(replaceEvery(s, "Host Frame:", "Host Frame:\t", 5));
        v.add(replaceEvery(s, "     Host Frame:", "  Host Frame:", 2));
        v.add(replaceEvery(s, "     Host Frame:", " Host Frame:", 3));
        v.add(replaceEvery(s, "\n", "   \n", 3));
        v.add(replaceEvery(s, "] in ", "]  in ", 3));
        v.add(replaceEvery(s, ") in ", ") in \u00c3\u00a9", 2)); // é as UTF-8, read as Latin-1 here
        v.add(replaceEvery(s, ") in ", ") in \u00ff\u00e2\u0082", 3)); // malformed UTF-8
        v.add(replaceEvery(s, "Host Frame:", "Host Frame:" + "x".repeat(70_000), 7, longLines));
        v.add(replaceEvery(s, "at ", "at " + "y".repeat(65_530), 5, longLines));
        v.add(replaceEvery(s, "=========     at ", "=========  at", 2));
        v.add(replaceEvery(s, "=========\n", "========= \n", 2));
        List<byte[]> out = new ArrayList<>();
        for (String x : v) {
            out.add(x.getBytes(StandardCharsets.ISO_8859_1));
        }
        for (int cut : new int[] {3, 2}) {
            out.add(java.util.Arrays.copyOf(b, b.length / cut));
        }
        return out;
    }

    @Test
    void everyFixtureAndItsVariantsParseAsBefore() throws IOException {
        List<Path> fixtures = fixtures();
        assertThat(fixtures).hasSizeGreaterThan(50);
        for (Path f : fixtures) {
            List<byte[]> vs = variants(Files.readAllBytes(f), LONG_LINES);
            for (int i = 0; i < vs.size(); i++) {
                assertSame(f + " variant " + i, vs.get(i));
            }
        }
    }

    @Test
    void smallReadsCrossChunkAndLineBoundariesAnywhere() throws IOException {
        for (Path f : fixtures()) {
            byte[] b = Files.readAllBytes(f);
            if (b.length < 50_000) {
                assertSame(f + " read 7 bytes at a time", b, 7);
            }
        }
    }

    @Test
    void randomMutationsParseAsBefore() throws IOException {
        byte[][] hot = {
            "\n".getBytes(),
            "\r".getBytes(),
            {0},
            {0x1b},
            {'\t'},
            {(byte) 0xff},
            "] in ".getBytes(),
            "Host Frame:".getBytes(),
            "=========".getBytes(),
            "  ".getBytes(),
            "at ".getBytes()
        };
        List<byte[]> seeds = new ArrayList<>();
        for (Path f : fixtures()) {
            byte[] b = Files.readAllBytes(f);
            if (b.length < 20_000 && new String(b, StandardCharsets.ISO_8859_1).contains("=========")) {
                seeds.add(b);
            }
        }
        assertThat(seeds).isNotEmpty();
        Random random = new Random(15);
        for (int n = 0; n < 3000; n++) {
            byte[] b = seeds.get(random.nextInt(seeds.size()));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int pos = 0;
            for (int k = 1 + random.nextInt(8); k > 0; k--) {
                int at = pos + random.nextInt(Math.max(1, b.length - pos));
                out.write(b, pos, at - pos);
                byte[] h = hot[random.nextInt(hot.length)];
                out.write(h, 0, h.length);
                pos = Math.min(b.length, at + random.nextInt(3));
            }
            out.write(b, pos, b.length - pos);
            assertSame("mutation " + n, out.toByteArray());
        }
    }

    /**
     * Every variant of every sanitizer log, one after the other (so also many runs in one file), read
     * ahead in many chunks. Two over-long lines per over-long-line variant (172 in all, so chunk ends and
     * 4093-byte reads still fall inside them): with all of them the input was 115 MB, 98 MB of it 'x' and
     * 'y', where 6 chunks are what the test needs (issue #27).
     */
    @Test
    void largeInputsReadAheadInManyChunksParseAsBefore() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (Path f : fixtures()) {
            byte[] b = Files.readAllBytes(f);
            if (new String(b, StandardCharsets.ISO_8859_1).contains("=========")) {
                for (byte[] v : variants(b, 2)) {
                    all.write(v);
                }
            }
        }
        byte[] once = all.toByteArray();
        ByteArrayOutputStream big = new ByteArrayOutputStream();
        while (big.size() < 6 * ChunkReader.CHUNK) {
            big.write(once);
        }
        assertSame("every variant of every fixture, repeated", big.toByteArray());
        assertSame("every variant of every fixture, repeated, read 4093 bytes at a time", big.toByteArray(), 4093);
    }
}
