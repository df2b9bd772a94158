package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One byte range of a file as a stream, with fixed bytes before and after it (the root element's tags
 * that make a piece of an XML file a document of its own). Reads with positional reads, so several
 * streams share one channel from several threads.
 */
final class ChunkInput extends InputStream {
    static final byte[] NONE = new byte[0];
    private static final int BUFFER = 32 * 1024;

    private final FileChannel channel;
    private final byte[] prefix;
    private final byte[] suffix;
    private final long end;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
    private long position;
    private int inPrefix;
    private int inSuffix;

    ChunkInput(FileChannel channel, long start, long end, byte[] prefix, byte[] suffix) {
        this.channel = channel;
        this.position = start;
        this.end = end;
        this.prefix = prefix;
        this.suffix = suffix;
        buffer.flip();
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int r = read(one, 0, 1);
        return r < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (inPrefix < prefix.length) {
            int n = Math.min(len, prefix.length - inPrefix);
            System.arraycopy(prefix, inPrefix, b, off, n);
            inPrefix += n;
            return n;
        }
        if (!buffer.hasRemaining() && position < end) {
            fill();
        }
        if (buffer.hasRemaining()) {
            int n = Math.min(len, buffer.remaining());
            buffer.get(b, off, n);
            return n;
        }
        if (inSuffix < suffix.length) {
            int n = Math.min(len, suffix.length - inSuffix);
            System.arraycopy(suffix, inSuffix, b, off, n);
            inSuffix += n;
            return n;
        }
        return -1;
    }

    private void fill() throws IOException {
        buffer.clear();
        buffer.limit((int) Math.min(BUFFER, end - position));
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, position + buffer.position());
            if (n < 0) {
                break; // the file shrank under us: the range ends early, as a stream of the file would
            }
        }
        buffer.flip();
        position += buffer.limit();
        if (buffer.limit() == 0) {
            position = end;
        }
    }
}
