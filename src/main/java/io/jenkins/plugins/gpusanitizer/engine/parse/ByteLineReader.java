package io.jenkins.plugins.gpusanitizer.engine.parse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Lines of a UTF-8 stream, read as bytes: an ASCII line (nearly every line of a sanitizer log)
 * becomes a String with one copy and no decoding (the decoder was the parser's top cost); other
 * lines are decoded as UTF-8 with malformed bytes replaced. Each line is capped at {@code maxLine}
 * bytes, the rest of an over-long line dropped and counted. LF, CRLF and lone CR end lines.
 */
final class ByteLineReader implements AutoCloseable {
    private final InputStream in;
    private final int maxLine;
    private byte[] buf = new byte[1 << 16];
    private int pos;
    private int len;
    private boolean skipLf;
    private boolean discarding;
    private boolean eof;
    private long truncatedLines;
    private long lineNumber;

    ByteLineReader(InputStream in, int maxLine) {
        this.in = in;
        this.maxLine = maxLine;
    }

    String readLine() throws IOException {
        while (true) {
            int nl = -1;
            for (int i = pos; i < len; i++) {
                byte b = buf[i];
                if (b == '\n' || b == '\r') {
                    nl = i;
                    break;
                }
            }
            if (nl >= 0) {
                int from = pos;
                byte b = buf[nl];
                pos = nl + 1;
                if (skipLf && b == '\n' && nl == from) {
                    skipLf = false;
                    continue; // the LF of a CRLF
                }
                skipLf = b == '\r';
                if (discarding) {
                    discarding = false;
                    continue; // the end of an over-long line, already returned cut
                }
                return make(from, nl);
            }
            if (discarding) {
                pos = len;
            } else if (len - pos >= maxLine) {
                String head = make(pos, pos + maxLine);
                truncatedLines++;
                discarding = true;
                skipLf = false;
                pos = len;
                return head;
            }
            if (eof) {
                if (pos >= len || discarding) {
                    return null;
                }
                String last = make(pos, len);
                pos = len;
                return last;
            }
            fill();
        }
    }

    private void fill() throws IOException {
        int pending = len - pos;
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, pending);
            len = pending;
            pos = 0;
        }
        if (len == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        int n = in.read(buf, len, buf.length - len);
        if (n < 0) {
            eof = true;
        } else {
            len += n;
        }
    }

    private String make(int from, int to) {
        lineNumber++;
        for (int i = from; i < to; i++) {
            if (buf[i] < 0) {
                return new String(buf, from, to - from, StandardCharsets.UTF_8);
            }
        }
        return new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
    }

    long truncatedLines() {
        return truncatedLines;
    }

    long lineNumber() {
        return lineNumber;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
