package io.jenkins.plugins.gpusanitizer.engine.parse;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/** Opens an input file for a parser, turning I/O failures into the one-line {@link InputException}. */
public final class InputFiles {
    /** What a parser does with the open stream. */
    @FunctionalInterface
    public interface Reading<T> {
        T read(InputStream in) throws IOException;
    }

    private InputFiles() {}

    private static final Pattern ANSI = Pattern.compile("\u001b\\[[0-9;]*[A-Za-z]");

    /** The line without terminal colour codes (a job that logs in colour, through a pseudo-terminal). */
    public static String withoutAnsi(String line) {
        return line.indexOf('\u001b') < 0 ? line : ANSI.matcher(line).replaceAll("");
    }

    public static <T> T read(Path file, Reading<T> reading) {
        try (InputStream in = Files.newInputStream(file)) {
            return reading.read(in);
        } catch (NoSuchFileException e) {
            throw new InputException(file, "no such file");
        } catch (IOException e) {
            throw new InputException(file, "cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * The text of a log as UTF-8 bytes, whatever Unicode encoding it was saved in: a UTF-8 byte-order
     * mark is dropped, and UTF-16 (with its BOM, as PowerShell's {@code >} writes, or without one when
     * the first characters are plain ASCII) is transcoded. Anything else is passed through unchanged.
     */
    public static InputStream utf8(InputStream raw) throws IOException {
        BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
        in.mark(64);
        byte[] head = in.readNBytes(64);
        in.reset();
        int n = head.length;
        if (n >= 3 && (head[0] & 0xff) == 0xEF && (head[1] & 0xff) == 0xBB && (head[2] & 0xff) == 0xBF) {
            in.skipNBytes(3);
            return in;
        }
        Charset utf16 = null;
        int bom = 0;
        if (n >= 2 && (head[0] & 0xff) == 0xFF && (head[1] & 0xff) == 0xFE && mostlyZero(head, n, 3)) {
            utf16 = StandardCharsets.UTF_16LE;
            bom = 2;
        } else if (n >= 2 && (head[0] & 0xff) == 0xFE && (head[1] & 0xff) == 0xFF && mostlyZero(head, n, 2)) {
            utf16 = StandardCharsets.UTF_16BE;
            bom = 2;
        } else if (asciiUtf16(head, n, 0)) {
            utf16 = StandardCharsets.UTF_16LE;
        } else if (asciiUtf16(head, n, 1)) {
            utf16 = StandardCharsets.UTF_16BE;
        }
        if (utf16 == null) {
            return in;
        }
        in.skipNBytes(bom);
        return new Utf8Stream(new InputStreamReader(
                in,
                utf16.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE)));
    }

    /** A text reader of a log: {@link #utf8} decoded, malformed bytes replaced. */
    public static Reader reader(InputStream raw) throws IOException {
        return new InputStreamReader(
                utf8(raw),
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE));
    }

    /**
     * Whether the bytes after a UTF-16 byte-order mark look like UTF-16 text (logs start in ASCII, so
     * most high bytes are zero): two bytes that only look like a BOM do not turn a UTF-8 log into noise.
     */
    private static boolean mostlyZero(byte[] b, int n, int from) {
        int all = 0;
        int zero = 0;
        for (int i = from; i < n; i += 2) {
            all++;
            if (b[i] == 0) {
                zero++;
            }
        }
        return all == 0 || 2 * zero >= all;
    }

    /** At least 8 characters of printable ASCII as UTF-16: every other byte zero, the others not. */
    private static boolean asciiUtf16(byte[] b, int n, int low) {
        int pairs = n / 2;
        if (pairs < 8) {
            return false;
        }
        for (int i = 0; i < pairs; i++) {
            byte ch = b[2 * i + low];
            byte zero = b[2 * i + 1 - low];
            if (zero != 0 || ch == 0 || ch < 0) {
                return false;
            }
        }
        return true;
    }

    /** The characters of a reader encoded as UTF-8 bytes, streamed. */
    private static final class Utf8Stream extends InputStream {
        private final Reader reader;
        private final CharsetEncoder encoder = StandardCharsets.UTF_8
                .newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        private final CharBuffer chars = CharBuffer.allocate(8192);
        private final ByteBuffer bytes = ByteBuffer.allocate(3 * 8192 + 16);
        private boolean eof;

        Utf8Stream(Reader reader) {
            this.reader = reader;
            bytes.flip();
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
            while (!bytes.hasRemaining()) {
                if (eof) {
                    return -1;
                }
                int r = reader.read(chars);
                if (r < 0) {
                    eof = true;
                }
                chars.flip();
                bytes.clear();
                encoder.encode(chars, bytes, eof);
                if (eof) {
                    encoder.flush(bytes);
                }
                chars.compact();
                bytes.flip();
            }
            int n = Math.min(len, bytes.remaining());
            bytes.get(b, off, n);
            return n;
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }
}
