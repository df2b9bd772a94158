package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lines the text parser reads (LineChunker through ChunkReader): line ends, over-long lines, UTF-8. */
class LineChunkerTest {
    private static List<String> lines(byte[] bytes, int max, int chunk) throws IOException {
        // a stream that returns at most `chunk` bytes per read, to cross buffer boundaries everywhere
        InputStream in = new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, chunk));
            }
        };
        // the lines the text parser reads: LineChunker's, a chunk at a time
        ChunkReader chunks = new ChunkReader(new LineChunker(in, max), c -> {}, false);
        List<String> out = new ArrayList<>();
        for (LineChunk c = chunks.next(); c != null; c = chunks.next()) {
            for (int i = 0; i < c.lines; i++) {
                out.add(c.text(i));
            }
        }
        return out;
    }

    @Test
    void lineEndingsOfEveryKind() throws IOException {
        for (int chunk : new int[] {1, 2, 3, 7, 1 << 16}) {
            assertThat(lines("a\nb\r\nc\rd\n\ne".getBytes(StandardCharsets.UTF_8), 100, chunk))
                    .as("chunk " + chunk)
                    .containsExactly("a", "b", "c", "d", "", "e");
        }
    }

    @Test
    void overLongLinesAreCutAndCounted() throws IOException {
        String longLine = "x".repeat(100_000);
        for (int chunk : new int[] {5, 4096, 1 << 16}) {
            List<String> got = lines(("start\n" + longLine + "\nend\n").getBytes(StandardCharsets.UTF_8), 1000, chunk);
            assertThat(got).hasSize(3);
            assertThat(got.get(1)).hasSize(1000);
            assertThat(got.get(2)).isEqualTo("end");
        }
    }

    @Test
    void utf8AndMalformedBytes() throws IOException {
        byte[] bytes = {'o', 'k', '\n', (byte) 0xC3, (byte) 0xA9, '\n', (byte) 0xFF, 'x', '\n'};
        assertThat(lines(bytes, 100, 3)).containsExactly("ok", "é", "\uFFFDx");
    }
}
