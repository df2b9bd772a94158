package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads a large compute-sanitizer XML file on several threads with exactly the result of one read
 * from start to end: the file is cut into pieces of about {@link #CHUNK_BYTES} in front of a line
 * that opens a {@code <record>}, each piece is parsed as a document of its own (wrapped in the root
 * element's tags) by a StAX reader of its own, and the records go to the sink in file order, so the
 * first record of a defect stays its example. At most two pieces per thread are read ahead, so the
 * memory held does not grow with the file.
 *
 * <p>Why a piece that parses cleanly is read as the whole file reads it: the first piece starts at
 * the file's start; a piece that starts where the file is inside the root element and outside any
 * markup is in the same state as its reader after the added {@code <ComputeSanitizerOutput>}, so both
 * read its bytes alike. If that reader then takes the added {@code </ComputeSanitizerOutput>} as the
 * end of the root, the piece's end is again inside the root and outside any markup: a cut inside a
 * comment, CDATA section, processing instruction, tag or record leaves the reader in the middle of it
 * at the end of its input, which is an error. The pieces must decode alike, so the file must be UTF-8
 * XML 1.0 ({@link #plainUtf8Xml10}); a cut after a newline never splits a UTF-8 character.
 *
 * <p>A piece that does not parse cleanly (a cut file, damage, a DOCTYPE, an entity reference, a
 * record start the search took from a comment) ends the parallel read: the file is read on from that
 * piece's start on one thread, from the state the clean pieces before it left, so the records, counts
 * and problems are the ones a single read gives, the problem's line and column those of the file.
 */
final class ParallelXmlParse {
    static final int MAX_THREADS = 4;
    static final int CHUNK_BYTES = 256 << 10;
    /** How far past a piece's planned end a record start is looked for; past that the rest is read on one thread. */
    private static final int MAX_SEARCH = 8 << 20;
    /** Indentation allowed in front of a {@code <record>} that starts a piece. */
    private static final int MAX_INDENT = 64;

    private static final int WINDOW = 64 * 1024;
    private static final byte[] RECORD = "<record>".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ROOT_START = ("<" + XmlDocumentScan.ROOT + ">").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ROOT_END = ("</" + XmlDocumentScan.ROOT + ">").getBytes(StandardCharsets.US_ASCII);
    private static final Pattern VERSION = Pattern.compile("\\sversion\\s*=\\s*([\"'])1\\.0\\1");
    private static final Pattern ENCODING = Pattern.compile("\\sencoding\\s*=\\s*([\"'])([^\"']*)\\1");

    private final XMLInputFactory factory;
    private final FileChannel channel;
    private final Path name;
    private final Tool hint;
    private final int threads;
    private final int chunkBytes;
    private final long size;
    private final ByteBuffer window = ByteBuffer.allocate(WINDOW + MAX_INDENT + RECORD.length + 1);

    ParallelXmlParse(XMLInputFactory factory, FileChannel channel, Path name, Tool hint, int threads, int chunkBytes)
            throws IOException {
        this.factory = factory;
        this.channel = channel;
        this.name = name;
        this.hint = hint;
        this.threads = threads;
        this.chunkBytes = chunkBytes;
        this.size = channel.size();
    }

    /** One piece of the file as its reader found it; {@code records} null when it did not parse cleanly. */
    private record Piece(long start, long end, List<SanitizerRecord> records, boolean closed, long lines) {}

    SanitizerOutput parse(Consumer<SanitizerRecord> sink) throws IOException {
        XmlDocumentScan total = new XmlDocumentScan(name, hint);
        if (!plainUtf8Xml10(head())) {
            readRest(total, 0, 0, sink);
            return total.output();
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads, task -> {
            Thread t = new Thread(task, "gpu-sanitize XML reader");
            t.setDaemon(true);
            return t;
        });
        ArrayDeque<Future<Piece>> ahead = new ArrayDeque<>();
        try {
            long next = 0;
            long rest = -1; // where the read goes on on this thread, if it has to
            long lineBase = 0;
            while (true) {
                while (rest < 0 && next < size && ahead.size() < 2 * threads) {
                    long start = next;
                    long end = start + chunkBytes >= size ? size : recordLineAfter(start + chunkBytes);
                    if (end < 0) {
                        rest = start;
                        break;
                    }
                    ahead.add(pool.submit(() -> read(start, end)));
                    next = end;
                }
                Future<Piece> head = ahead.poll();
                if (head == null) {
                    break;
                }
                Piece piece = await(head);
                if (piece.records() == null) {
                    rest = piece.start();
                    break;
                }
                total.rootSeen(); // a clean piece has the root's start in front of it
                for (SanitizerRecord rec : piece.records()) {
                    try {
                        total.record(rec, sink);
                    } catch (RuntimeException e) {
                        total.fail(e);
                        return total.output();
                    }
                }
                total.closed(piece.end() == size && piece.closed());
                lineBase += piece.lines();
            }
            if (rest >= 0) {
                ahead.forEach(f -> f.cancel(false)); // never interrupt: that would close the shared channel
                ahead.clear();
                readRest(total, rest, lineBase, sink);
            }
            return total.output();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            total.fail(new IOException("interrupted"));
            return total.output();
        } finally {
            ahead.forEach(f -> f.cancel(false));
            pool.shutdown();
        }
    }

    private static Piece await(Future<Piece> f) throws InterruptedException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause()); // read() turns every exception into a piece
        }
    }

    /** Parses one piece on a reader thread; the records are kept until the pieces before it are delivered. */
    private Piece read(long start, long end) {
        XmlDocumentScan scan = new XmlDocumentScan(name, hint);
        List<SanitizerRecord> records = new ArrayList<>();
        boolean last = end == size;
        XMLStreamReader r = null;
        try {
            r = factory.createXMLStreamReader(new Utf8Guard(new ChunkInput(
                    channel,
                    start,
                    end,
                    start == 0 ? ChunkInput.NONE : ROOT_START,
                    last ? ChunkInput.NONE : ROOT_END)));
            scan.scan(r, records::add);
            if (scan.clean() && (last || scan.closed())) {
                // the piece ends with a newline, so the added closing tag is on the line after its last
                return new Piece(start, end, records, scan.closed(), scan.closingLine() - 1);
            }
        } catch (XMLStreamException | RuntimeException e) {
            // not clean: read again on one thread, where it gets the single read's error or problem
        } finally {
            XmlDocumentScan.close(r);
        }
        return new Piece(start, end, null, false, 0);
    }

    /** Reads the file from {@code start} to its end on this thread, on from the state {@code total} holds. */
    private void readRest(XmlDocumentScan total, long start, long lineBase, Consumer<SanitizerRecord> sink) {
        byte[] prefix = start == 0 ? ChunkInput.NONE : ROOT_START;
        if (start > 0) {
            total.rootSeen();
        }
        total.read(
                factory, new ChunkInput(channel, start, size, prefix, ChunkInput.NONE), sink, lineBase, prefix.length);
    }

    /**
     * The start of the first line at or after {@code from} that opens a record ({@code <record>} after at
     * most {@link #MAX_INDENT} blanks); the file's size when none follows, -1 when none comes within
     * {@link #MAX_SEARCH}. A plain byte search, so it can take a {@code <record>} from a comment or
     * CDATA section: the piece before it then does not parse cleanly (see the class comment).
     */
    long recordLineAfter(long from) throws IOException {
        long limit = Math.min(size, from + MAX_SEARCH);
        for (long pos = from - 1; pos < limit; pos += WINDOW) {
            window.clear();
            while (window.hasRemaining()) {
                if (channel.read(window, pos + window.position()) < 0) {
                    break;
                }
            }
            byte[] a = window.array();
            int n = window.position();
            for (int i = 0; i < Math.min(n, WINDOW); i++) {
                if (a[i] == '\n' && opensRecord(a, i + 1, n)) {
                    return pos + i + 1;
                }
            }
        }
        return limit == size ? size : -1;
    }

    private static boolean opensRecord(byte[] a, int from, int n) {
        int i = from;
        while (i < n && i - from < MAX_INDENT && (a[i] == ' ' || a[i] == '\t')) {
            i++;
        }
        if (i + RECORD.length > n) {
            return false;
        }
        for (int k = 0; k < RECORD.length; k++) {
            if (a[i + k] != RECORD[k]) {
                return false;
            }
        }
        return true;
    }

    private byte[] head() throws IOException {
        ByteBuffer b = ByteBuffer.allocate((int) Math.min(size, 1024));
        while (b.hasRemaining() && channel.read(b, b.position()) >= 0) {
            // positional reads until full or the end of the file
        }
        byte[] head = new byte[b.position()];
        b.flip().get(head);
        return head;
    }

    /**
     * Whether the file starts as UTF-8 XML 1.0 (an optional UTF-8 byte-order mark, then {@code <}, and
     * the XML declaration, if there is one, says version 1.0 and no encoding but UTF-8), so that a piece
     * without the declaration decodes as the whole file does.
     */
    static boolean plainUtf8Xml10(byte[] head) {
        int i = head.length >= 3 && (head[0] & 0xff) == 0xEF && (head[1] & 0xff) == 0xBB && (head[2] & 0xff) == 0xBF
                ? 3
                : 0;
        if (i >= head.length || head[i] != '<') {
            return false;
        }
        for (byte b : head) {
            if (b == 0) {
                return false; // UTF-16 or UTF-32 (a NUL is no XML character)
            }
        }
        String start = new String(head, i, head.length - i, StandardCharsets.ISO_8859_1);
        if (!start.startsWith("<?xml")) {
            return true; // no declaration: UTF-8 and version 1.0
        }
        int end = start.indexOf("?>");
        if (end < 0) {
            return false;
        }
        String declaration = start.substring(0, end);
        Matcher encoding = ENCODING.matcher(declaration);
        return VERSION.matcher(declaration).find() && (!encoding.find() || "UTF-8".equalsIgnoreCase(encoding.group(2)));
    }
}
