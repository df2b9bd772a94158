package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A log that ends inside a record's line (the tool killed while it wrote) has that line left out, and nothing
 * else changes: on the real H200 log of the demo, cut where a frame's line number is half written, and on every
 * sanitizer log of the test resources cut at many places and read in reads of every size.
 */
class UnfinishedLineTest {
    private static final String PREFIX = SanitizerTextParser.DEFAULT_PREFIX;
    private static final Path FAR_OOB = Corpus.file("far-oob/memcheck.log");

    /** What the filter gives, and the line it left out. */
    private record Filtered(byte[] bytes, String leftOut) {}

    /** The input gives at most READ bytes a read, the filter is asked for WANT (small: its buffer; large: direct). */
    private static final int[][] READS = {{1, 3}, {7, 1 << 20}, {4093, 2047}, {1 << 16, 1 << 20}, {1 << 20, 10_000}};

    private static Filtered filter(byte[] input, int read, int want, int maxLine) throws IOException {
        InputStream in = new ByteArrayInputStream(input) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, read));
            }
        };
        UnfinishedLine f = new UnfinishedLine(in, PREFIX, maxLine);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] b = new byte[want];
        int n;
        while ((n = f.read(b, 0, b.length)) >= 0) {
            out.write(b, 0, n);
        }
        return new Filtered(out.toByteArray(), f.leftOut());
    }

    /** The oracle, written from the rule and not from the stream's code: where the kept bytes end. */
    private static int keptLength(byte[] input, int maxLine) {
        int lineStart = 0;
        for (int i = input.length - 1; i >= 0; i--) {
            if (input[i] == '\n' || input[i] == '\r') {
                lineStart = i + 1;
                break;
            }
        }
        String last = new String(input, lineStart, input.length - lineStart, StandardCharsets.ISO_8859_1);
        boolean recordLine = last.startsWith(PREFIX + "  ") && last.length() < maxLine;
        return recordLine ? lineStart : input.length;
    }

    private static byte[] cutBefore(Path log, String text) throws IOException {
        byte[] b = Files.readAllBytes(log);
        int at = new String(b, StandardCharsets.ISO_8859_1).indexOf(text);
        assertThat(at).as(text + " in " + log).isPositive();
        return Arrays.copyOf(b, at + text.length());
    }

    private static List<SanitizerRecord> records(byte[] log, boolean everyLine, List<SanitizerOutput> outputs)
            throws IOException {
        List<SanitizerRecord> records = new ArrayList<>();
        SanitizerTextParser parser = new SanitizerTextParser();
        InputStream in = new ByteArrayInputStream(log);
        outputs.addAll(
                everyLine
                        ? parser.parseEveryLine(in, FAR_OOB, null, i -> records::add)
                        : parser.parseRuns(in, FAR_OOB, null, i -> records::add));
        return records;
    }

    private static List<String> pythonLines(List<SanitizerRecord> records) {
        return records.stream()
                .flatMap(r -> r.pythonFrames().stream())
                .map(Frame::line)
                .map(String::valueOf)
                .toList();
    }

    @Test
    void aFrameLineCutInItsLineNumberIsLeftOutAndSaidSo() throws IOException {
        // the tool killed after "train_lstm.py:3" of "train_lstm.py:32" reached the file
        byte[] cut = cutBefore(FAR_OOB, "Host Frame: buggy_scale in train_lstm.py:3");

        List<SanitizerOutput> asRead = new ArrayList<>();
        assertThat(pythonLines(records(cut, true, asRead)))
                .as("read as it is, the cut line names line 3")
                .containsExactly("3");

        List<SanitizerOutput> outputs = new ArrayList<>();
        List<SanitizerRecord> records = records(cut, false, outputs);
        assertThat(records).hasSize(1);
        assertThat(records.get(0).pythonFrames()).isEmpty();
        assertThat(records.get(0).hostFrames()).isNotEmpty(); // the frames before the cut line are kept
        SanitizerOutput out = outputs.get(0);
        assertThat(out.complete()).isFalse();
        assertThat(out.problems())
                .anySatisfy(p -> assertThat(p)
                        .contains("has no line end (the tool stopped while writing it)")
                        .contains("Host Frame: buggy_scale in train_lstm.py:3"));
    }

    @Test
    void aSummaryWithoutItsLineEndIsKept() throws IOException {
        byte[] whole = Files.readAllBytes(FAR_OOB);
        assertThat(whole[whole.length - 1]).isEqualTo((byte) '\n');
        byte[] saved = Arrays.copyOf(whole, whole.length - 1); // an editor that saves no final line end

        List<SanitizerOutput> before = new ArrayList<>();
        List<SanitizerOutput> after = new ArrayList<>();
        List<SanitizerRecord> a = records(whole, false, before);
        List<SanitizerRecord> b = records(saved, false, after);
        assertThat(after).isEqualTo(before);
        assertThat(after.get(0).errorsTotal()).isEqualTo(1603L);
        assertThat(after.get(0).problems()).isEmpty();
        assertThat(b).isEqualTo(a);
    }

    @Test
    void everySanitizerLogCutAnywhereLosesOnlyAnUnfinishedRecordLine() throws IOException {
        int logs = 0;
        int leftOut = 0;
        for (Path f : TextParserEquivalenceTest.fixtures()) {
            byte[] b = Files.readAllBytes(f);
            if (!new String(b, StandardCharsets.ISO_8859_1).contains(PREFIX)) {
                continue;
            }
            logs++;
            List<Integer> cuts = new ArrayList<>(List.of(0, 1, b.length));
            for (int k = 1; k < 40; k++) {
                int at = (int) ((long) b.length * k / 40);
                cuts.addAll(List.of(at, Math.min(b.length, at + 1)));
            }
            int r = 0;
            for (int cut : cuts) {
                byte[] in = Arrays.copyOf(b, cut);
                for (int maxLine : new int[] {64, 1 << 16}) {
                    int[] read = READS[r++ % READS.length];
                    Filtered got = filter(in, read[0], read[1], maxLine);
                    int kept = keptLength(in, maxLine);
                    String what = f + " cut at " + cut + ", reads " + Arrays.toString(read) + ", maxLine " + maxLine;
                    assertThat(got.bytes()).as(what).isEqualTo(Arrays.copyOf(in, kept));
                    if (kept < in.length) {
                        leftOut++;
                        assertThat(got.leftOut()).as(what).startsWith(PREFIX + "  ");
                    } else {
                        assertThat(got.leftOut()).as(what).isNull();
                    }
                }
            }
        }
        assertThat(logs).isGreaterThan(20);
        assertThat(leftOut).as("cuts that fell inside a record's line").isGreaterThan(100);
    }
}
