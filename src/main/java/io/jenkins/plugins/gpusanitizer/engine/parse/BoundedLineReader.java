package io.jenkins.plugins.gpusanitizer.engine.parse;

import java.io.IOException;
import java.io.Reader;

/**
 * Reads lines like {@link java.io.BufferedReader#readLine()} but caps each line's length, so a
 * multi-megabyte line (a binary file, a log without newlines) cannot blow up memory, and counts
 * the lines it had to cut. Handles LF, CRLF and lone CR.
 */
public final class BoundedLineReader implements AutoCloseable {
    public static final int DEFAULT_MAX_LINE = 64 * 1024;

    private final Reader in;
    private final int maxLine;
    private final char[] buf = new char[64 * 1024];
    private int pos;
    private int len;
    private boolean skipLf;
    private long truncatedLines;
    private long lineNumber;
    private final StringBuilder line = new StringBuilder(256);

    public BoundedLineReader(Reader in) {
        this(in, DEFAULT_MAX_LINE);
    }

    public BoundedLineReader(Reader in, int maxLine) {
        this.in = in;
        this.maxLine = maxLine;
    }

    /** The next line without its terminator, or null at the end of input. */
    public String readLine() throws IOException {
        line.setLength(0);
        boolean any = false;
        boolean cut = false;
        while (true) {
            if (pos >= len) {
                len = in.read(buf, 0, buf.length);
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    if (!any) {
                        return null;
                    }
                    return finish(cut);
                }
            }
            if (skipLf) {
                skipLf = false;
                if (buf[pos] == '\n') {
                    pos++;
                    continue;
                }
            }
            any = true;
            int start = pos;
            while (pos < len) {
                char c = buf[pos];
                if (c == '\n' || c == '\r') {
                    if (line.length() == 0 && pos - start <= maxLine) {
                        // the whole line is in the buffer: one copy, no builder
                        String whole = new String(buf, start, pos - start);
                        pos++;
                        if (c == '\r') {
                            skipLf = true;
                        }
                        lineNumber++;
                        return whole;
                    }
                    cut |= append(start, pos);
                    pos++;
                    if (c == '\r') {
                        skipLf = true;
                    }
                    return finish(cut);
                }
                pos++;
            }
            cut |= append(start, pos);
        }
    }

    private boolean append(int from, int to) {
        int room = maxLine - line.length();
        int n = to - from;
        if (n <= room) {
            line.append(buf, from, n);
            return false;
        }
        if (room > 0) {
            line.append(buf, from, room);
        }
        return true;
    }

    private String finish(boolean cut) {
        lineNumber++;
        if (cut) {
            truncatedLines++;
        }
        return line.toString();
    }

    public long truncatedLines() {
        return truncatedLines;
    }

    public long lineNumber() {
        return lineNumber;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
