package io.jenkins.plugins.gpusanitizer.engine.parse;

import java.io.IOException;
import java.io.InputStream;

/**
 * Lines of a UTF-8 stream one by one, as Strings: {@link LineChunker}'s lines (the text parser takes
 * them a chunk at a time). An ASCII line becomes a String with one copy and no decoding; other lines
 * are decoded as UTF-8 with malformed bytes replaced. Each line is capped at {@code maxLine} bytes,
 * the rest of an over-long line dropped and counted. LF, CRLF and lone CR end lines.
 */
final class ByteLineReader implements AutoCloseable {
    private final InputStream in;
    private final LineChunker chunker;
    private final ChunkReader chunks;
    private LineChunk chunk;
    private int next;

    ByteLineReader(InputStream in, int maxLine) {
        this.in = in;
        this.chunker = new LineChunker(in, maxLine);
        this.chunks = new ChunkReader(chunker, c -> {}, false);
    }

    String readLine() throws IOException {
        while (chunk == null || next >= chunk.lines) {
            chunk = chunks.next();
            next = 0;
            if (chunk == null) {
                return null;
            }
        }
        return chunk.text(next++);
    }

    long truncatedLines() {
        return chunker.truncatedLines();
    }

    long lineNumber() {
        return chunker.lineNumber();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
