package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import com.ctc.wstx.exc.WstxParsingException;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.xml.stream.Location;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The document level of compute-sanitizer's XML: its root, its records, anything else it holds, and
 * how it ended. The state a parse builds up (records so far, problems) lives here, so a parse can go
 * on from the middle of a file ({@link ParallelXmlParse} does when a piece of the file was not plain
 * records).
 */
final class XmlDocumentScan {
    static final String ROOT = "ComputeSanitizerOutput";
    private static final int MAX_PROBLEMS = 10;

    private final Path name;
    private final Tool hint;
    private final XmlRecordReader recordReader;
    private final List<String> problems = new ArrayList<>();
    private final Map<Tool, Integer> typed = new HashMap<>();
    private long records;
    private boolean rootSeen;
    private boolean closed;
    /** The reader's line of the root's closing tag (a piece of a file: its lines are this minus one). */
    private long closingLine;
    /** Lines of the file before the reader's first line (when it starts in the middle of the file). */
    private long lineBase;
    /** Characters in front of the reader's first line that are not the file's (an added root tag). */
    private int firstLineShift;

    XmlDocumentScan(Path name, Tool hint) {
        this.name = name;
        this.hint = hint;
        this.recordReader = new XmlRecordReader(hint);
    }

    /**
     * Reads the rest of a document from {@code in}; a failure after the root element is a problem, one
     * before it the one-line {@link InputException}.
     *
     * @param lineBase       lines of the file before {@code in}'s first line (0 for a whole file)
     * @param firstLineShift characters in front of {@code in}'s first line that are not the file's
     */
    void read(
            XMLInputFactory factory,
            InputStream in,
            Consumer<SanitizerRecord> sink,
            long lineBase,
            int firstLineShift) {
        this.lineBase = lineBase;
        this.firstLineShift = firstLineShift;
        XMLStreamReader r = null;
        try {
            r = factory.createXMLStreamReader(new Utf8Guard(in));
            scan(r, sink);
        } catch (XMLStreamException | RuntimeException e) {
            fail(e);
        } finally {
            close(r);
        }
    }

    /** Reads a whole document (or a piece wrapped in the root element) from the reader, or throws. */
    void scan(XMLStreamReader r, Consumer<SanitizerRecord> sink) throws XMLStreamException {
        while (r.hasNext()) {
            int ev = r.next();
            if (ev == XMLStreamConstants.DTD) {
                problems.add("DOCTYPE ignored (DTDs are not processed)");
            } else if (ev == XMLStreamConstants.ENTITY_REFERENCE) {
                throw unexpandedEntity(r);
            } else if (ev == XMLStreamConstants.START_ELEMENT) {
                String el = r.getLocalName();
                if (!rootSeen) {
                    if (!ROOT.equals(el)) {
                        throw new InputException(
                                name, "not compute-sanitizer XML (root element <" + el + ">, expected <" + ROOT + ">)");
                    }
                    rootSeen = true;
                } else if ("record".equals(el)) {
                    record(recordReader.read(r), sink);
                }
            } else if (ev == XMLStreamConstants.END_ELEMENT && ROOT.equals(r.getLocalName())) {
                closed = true;
                closingLine = r.getLocation().getLineNumber();
            }
        }
    }

    /**
     * An entity reference other than the five XML predefines: with DTDs off nothing declares it, so the
     * document is not well-formed (the JDK's reader stopped there too).
     */
    static XMLStreamException unexpandedEntity(XMLStreamReader r) {
        return new WstxParsingException(
                "entity reference &" + r.getLocalName() + "; not expanded (DTDs are not processed)", r.getLocation());
    }

    /** Counts a record and hands it on (a failing sink stops the parse, as a failing reader does). */
    void record(SanitizerRecord rec, Consumer<SanitizerRecord> sink) {
        if (rec.tool() != null) {
            typed.merge(rec.tool(), 1, Integer::sum);
        }
        records++;
        sink.accept(rec);
    }

    /** What a failed read means: not this XML at all (before the root), else a cut-off or damaged file. */
    void fail(Exception e) {
        if (e instanceof InputException ie) {
            throw ie;
        }
        if (!rootSeen) {
            throw new InputException(name, "not compute-sanitizer XML: " + detail(e));
        }
        if (problems.size() < MAX_PROBLEMS) {
            problems.add("XML cut off or malformed after " + records + " complete record(s): " + detail(e));
        }
    }

    /** The failure in one line, its place as a line and column of the file. */
    private String detail(Exception e) {
        // a reader's getters that cannot throw XMLStreamException (getTextCharacters) throw it wrapped
        Throwable t = !(e instanceof XMLStreamException) && e.getCause() instanceof XMLStreamException c ? c : e;
        String message = t.getMessage();
        // Woodstox ends its messages with "\n at [row,col {source}]: [r,c]": the reader's place, not the file's
        // when the reader started in the middle of it
        int at = message == null ? -1 : message.lastIndexOf("\n at [row,col");
        if (at >= 0 && t instanceof XMLStreamException x && x.getLocation() != null) {
            Location l = x.getLocation();
            int row = l.getLineNumber();
            int column = row == 1 ? l.getColumnNumber() - firstLineShift : l.getColumnNumber();
            message = message.substring(0, at) + " (line " + (lineBase + row) + ", column " + column + ")";
        }
        return oneLine(message);
    }

    /** Starts a scan that goes on where a clean piece of the file ended: inside the root, after its records. */
    void rootSeen() {
        rootSeen = true;
    }

    boolean clean() {
        return problems.isEmpty();
    }

    boolean closed() {
        return closed;
    }

    void closed(boolean closed) {
        this.closed = closed;
    }

    long closingLine() {
        return closingLine;
    }

    SanitizerOutput output() {
        if (!rootSeen) {
            throw new InputException(name, "not compute-sanitizer XML (no <" + ROOT + "> element)");
        }
        if (!closed && problems.stream().noneMatch(p -> p.startsWith("XML cut off"))) {
            problems.add("XML cut off after " + records + " complete record(s): no closing </" + ROOT + ">");
        }
        Tool tool = hint;
        if (tool == null) {
            tool = typed.entrySet().stream()
                    .filter(e -> e.getKey() != Tool.MEMCHECK)
                    .max(Map.Entry.comparingByValue())
                    .map(Map.Entry::getKey)
                    .orElse(Tool.MEMCHECK);
        }
        return new SanitizerOutput(
                name.toString(),
                "xml",
                tool,
                hint != null || records > 0,
                rootSeen,
                records,
                null,
                null,
                null,
                null,
                false,
                false,
                List.of(),
                closed,
                problems,
                null);
    }

    static void close(XMLStreamReader r) {
        if (r != null) {
            try {
                r.close();
            } catch (XMLStreamException ignored) {
                // nothing to keep from a failed close
            }
        }
    }

    static String oneLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        String one = s.replaceAll("\\s+", " ").trim();
        return one.length() > 200 ? one.substring(0, 200) + "..." : one;
    }
}
