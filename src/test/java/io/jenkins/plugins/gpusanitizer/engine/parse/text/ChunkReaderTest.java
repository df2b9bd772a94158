package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Lines read in chunks, on one thread or read ahead on a second, are the lines the line reader of before gave. */
class ChunkReaderTest {
    private static byte[] log(int size) {
        Random random = new Random(7);
        String[] pieces = {
            "=========     Host Frame: f(int) [0x1] in m.so",
            "========= Invalid",
            "app output",
            "",
            "\t",
            "\u001b[1m",
            "\0",
            "\u00e9",
            "x".repeat(70_000)
        };
        String[] ends = {"\n", "\r\n", "\r"};
        StringBuilder sb = new StringBuilder();
        while (sb.length() < size) {
            sb.append(pieces[random.nextInt(pieces.length)]).append(ends[random.nextInt(ends.length)]);
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> before(byte[] b) throws IOException {
        LineByLineTextParser.OldByteLineReader r = new LineByLineTextParser.OldByteLineReader(
                new ByteArrayInputStream(b), BoundedLineReader.DEFAULT_MAX_LINE);
        List<String> out = new ArrayList<>();
        String l;
        while ((l = r.readLine()) != null) {
            out.add(l);
        }
        out.add("cut " + r.truncatedLines() + " of " + r.lineNumber());
        return out;
    }

    private static List<String> chunked(byte[] b, boolean readAhead) throws IOException {
        LineChunker chunker = new LineChunker(new ByteArrayInputStream(b), BoundedLineReader.DEFAULT_MAX_LINE);
        List<String> out = new ArrayList<>();
        try (ChunkReader chunks = new ChunkReader(chunker, c -> {}, readAhead)) {
            LineChunk c;
            while ((c = chunks.next()) != null) {
                for (int i = 0; i < c.lines; i++) {
                    out.add(c.text(i));
                }
            }
        }
        out.add("cut " + chunker.truncatedLines() + " of " + chunker.lineNumber());
        return out;
    }

    @Test
    void theSameLinesOnOneThreadAndReadAhead() throws IOException {
        byte[] b = log(5 * ChunkReader.CHUNK);
        List<String> expected = before(b);
        assertThat(chunked(b, false)).isEqualTo(expected);
        assertThat(chunked(b, true)).isEqualTo(expected);
    }

    @Test
    void aReadFailureReachesTheParserThread() {
        InputStream failing = new InputStream() {
            private long n;

            @Override
            public int read() throws IOException {
                if (n++ > 3L * ChunkReader.CHUNK) {
                    throw new IOException("disk gone");
                }
                return n % 50 == 0 ? '\n' : 'a';
            }
        };
        assertThatThrownBy(() -> {
                    try (ChunkReader chunks = new ChunkReader(
                            new LineChunker(failing, BoundedLineReader.DEFAULT_MAX_LINE), c -> {}, true)) {
                        while (chunks.next() != null) {
                            // read on
                        }
                    }
                })
                .isInstanceOf(IOException.class)
                .hasMessage("disk gone");
    }

    @Test
    void aParserThatStopsEarlyStopsTheReader() throws IOException {
        byte[] b = log(8 * ChunkReader.CHUNK);
        ChunkReader chunks = new ChunkReader(
                new LineChunker(new ByteArrayInputStream(b), BoundedLineReader.DEFAULT_MAX_LINE), c -> {}, true);
        assertThat(chunks.next()).isNotNull();
        assertThat(chunks.next()).isNotNull();
        chunks.close(); // returns only once the reader has stopped
    }
}
