package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import java.io.CharConversionException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hands the XML reader the bytes of a UTF-8 document up to its first invalid sequence and fails the
 * read after them. Woodstox decodes its input a buffer (4000 bytes) at a time and drops the whole buffer
 * when one byte in it is invalid, so the records just before a damaged byte would be lost; with this in
 * front they are read and the damage is a problem after them, as the parser promises for a damaged file.
 * A document that says (by a byte order mark, zero bytes or its declaration) it is not UTF-8 is passed
 * through unchanged.
 */
final class Utf8Guard extends FilterInputStream {
    private static final int HEAD = 256;
    private static final Pattern ENCODING = Pattern.compile("encoding\\s*=\\s*[\"']([A-Za-z0-9._-]+)[\"']");

    private boolean checked;
    private boolean utf8 = true;
    /** Continuation bytes the current sequence still needs, and the range its next one must fall in. */
    private int needed;

    private int low = 0x80;
    private int high = 0xBF;
    private long position;
    private CharConversionException failure;

    Utf8Guard(InputStream in) {
        // a pushback stream to look at the head: BufferedInputStream would ask available() on every read
        super(new PushbackInputStream(in, HEAD));
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (!checked) {
            checked = true;
            utf8 = saysUtf8();
        }
        int n = in.read(b, off, len);
        if (n <= 0 || !utf8) {
            return n;
        }
        for (int i = off; i < off + n; i++) {
            int c = b[i] & 0xFF;
            if (!accept(c)) {
                failure = new CharConversionException(
                        String.format("invalid UTF-8 byte 0x%02X at byte %d", c, position + (i - off)));
                if (i == off) {
                    throw failure;
                }
                position += i - off;
                return i - off;
            }
        }
        position += n;
        return n;
    }

    /** One byte of the UTF-8 state machine (RFC 3629: no overlong forms, surrogates or values past U+10FFFF). */
    private boolean accept(int c) {
        if (needed > 0) {
            if (c < low || c > high) {
                return false;
            }
            needed--;
            low = 0x80;
            high = 0xBF;
            return true;
        }
        if (c < 0x80) {
            return true;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            needed = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            needed = 2;
            low = c == 0xE0 ? 0xA0 : 0x80;
            high = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            needed = 3;
            low = c == 0xF0 ? 0x90 : 0x80;
            high = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        return true;
    }

    /** Whether the document's first bytes leave it UTF-8: no UTF-16/32 signature, no other declared encoding. */
    private boolean saysUtf8() throws IOException {
        byte[] head = in.readNBytes(HEAD);
        ((PushbackInputStream) in).unread(head);
        if (head.length >= 2 && ((head[0] & 0xFF) == 0xFE || (head[0] & 0xFF) == 0xFF)) {
            return false;
        }
        for (int i = 0; i < Math.min(head.length, 4); i++) {
            if (head[i] == 0) {
                return false;
            }
        }
        String start = new String(head, StandardCharsets.ISO_8859_1);
        int end = start.indexOf("?>");
        if (start.startsWith("<?xml") && end > 0) {
            Matcher m = ENCODING.matcher(start.substring(0, end));
            return !m.find()
                    || m.group(1).equalsIgnoreCase("UTF-8")
                    || m.group(1).equalsIgnoreCase("UTF8");
        }
        return true;
    }
}
