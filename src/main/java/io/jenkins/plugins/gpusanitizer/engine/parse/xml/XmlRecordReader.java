package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads one {@code <record>} of compute-sanitizer's XML into a {@link SanitizerRecord}. One instance
 * per thread: its buffers are reused from record to record.
 */
final class XmlRecordReader {
    static final int MAX_DESTINATIONS = 16;
    private static final int MAX_TEXT = 16 * 1024;
    /** The deepest value read below {@code <record>}: {@code /what/source/where/func} (racecheck's accesses). */
    private static final int MAX_KEY_DEPTH = 4;
    /** Values kept per record (and per frame): a record holds a few dozen. */
    static final int MAX_VALUES = 256;

    private static final String DESTINATION = "/what/destination";
    /** Paths kept for reuse; past this many (only a strange file has them) each is built anew. */
    private static final int MAX_PATHS = 4096;

    private final Tool hint;
    // the element path below <record> at each depth ("/hostStack/frame/func"), only as deep as a value is
    // ever read: deeper elements are skipped in constant time, so a deep-and-wide record parses in linear
    // time. A path is only made when a value needs it (not for a host frame's values, most of a record),
    // and the path strings are reused from record to record, so a value's key costs no string of its own.
    private final String[] nameAt = new String[MAX_KEY_DEPTH + 1];
    private final String[] pathAt = new String[MAX_KEY_DEPTH + 1];
    private final Map<String, Map<String, String>> childPaths = new HashMap<>();
    private int paths;
    private final boolean[] hasChild = new boolean[MAX_KEY_DEPTH];
    // The text of the element being read, less the blanks in front of it (counted): a value that came as
    // one piece of text (nearly all do) is kept as the string made from the reader's characters, a value
    // in several pieces is gathered in the builder.
    private final StringBuilder text = new StringBuilder(256);

    private String piece;
    private int blanks;
    private final FrameValues frame = new FrameValues();
    /** The record's values by path; reused, as the record made from it keeps none of it. */
    private final Map<String, String> v = new HashMap<>(64);

    XmlRecordReader(Tool hint) {
        this.hint = hint;
        pathAt[0] = "";
    }

    // the record being read: its depth below <record>, its host frames, racecheck's accesses
    private int depth;
    private List<Frame> frames;
    private boolean inFrame;
    private List<Map<String, String>> destinations;
    private Map<String, String> destination;

    /** Reads one {@code <record>} (the reader is on its start tag) into a record. */
    SanitizerRecord read(XMLStreamReader r) throws XMLStreamException {
        v.clear();
        frames = new ArrayList<>(48);
        inFrame = false;
        // racecheck's Analysis records hold one <source> and several <destination> accesses
        destinations = new ArrayList<>();
        destination = null;
        clearText();
        depth = 0;
        while (true) {
            if (!r.hasNext()) {
                throw new XMLStreamException("record not closed");
            }
            int ev = r.next();
            if (ev == XMLStreamConstants.START_ELEMENT) {
                startElement(r);
            } else if (ev == XMLStreamConstants.CHARACTERS || ev == XMLStreamConstants.CDATA) {
                characters(r);
            } else if (ev == XMLStreamConstants.ENTITY_REFERENCE) {
                throw XmlDocumentScan.unexpandedEntity(r);
            } else if (ev == XMLStreamConstants.END_ELEMENT) {
                if (depth == 0) {
                    return XmlRecords.toRecord(v, frames, destinations, hint); // </record>
                }
                endElement();
            }
        }
    }

    private void startElement(XMLStreamReader r) {
        depth++;
        clearText();
        if (depth > MAX_KEY_DEPTH) {
            hasChild[MAX_KEY_DEPTH - 1] = true;
            return;
        }
        if (depth > 1) {
            hasChild[depth - 2] = true;
        }
        hasChild[depth - 1] = false;
        nameAt[depth] = r.getLocalName();
        pathAt[depth] = null;
        if (depth == 2 && is(2, "hostStack", "frame")) {
            frame.clear();
            inFrame = true;
        } else if (depth == 2 && is(2, "what", "destination")) {
            destination = new HashMap<>();
        }
    }

    private void characters(XMLStreamReader r) {
        int had = piece != null ? piece.length() : text.length();
        if (had == 0 && r.isWhiteSpace()) {
            // blanks in front of a value go in its trim anyway: counted against MAX_TEXT, not
            // copied (most are the file's indentation between elements)
            blanks = Math.min(MAX_TEXT, blanks + r.getTextLength());
        } else if (blanks + had < MAX_TEXT) {
            int n = Math.min(r.getTextLength(), MAX_TEXT - blanks - had);
            if (had == 0) {
                piece = new String(r.getTextCharacters(), r.getTextStart(), n);
            } else {
                if (piece != null) {
                    text.append(piece);
                    piece = null;
                }
                text.append(r.getTextCharacters(), r.getTextStart(), n);
            }
        }
    }

    /** An element below {@code <record>} ends: a host frame, a racecheck access, or a value. */
    private void endElement() {
        int level = depth--;
        if (level > MAX_KEY_DEPTH) {
            clearText();
            return;
        }
        if (inFrame && depth == 1 && is(level, "hostStack", "frame")) {
            if (frames.size() < SanitizerRecord.MAX_FRAMES) {
                frames.add(frame.toFrame());
            }
            inFrame = false;
        } else if (destination != null && depth == 1 && is(level, "what", "destination")) {
            if (destinations.size() < MAX_DESTINATIONS) {
                destinations.add(destination);
            }
            destination = null;
        } else if (!hasChild[depth]) {
            if (inFrame && depth == 2) {
                frame.put(nameAt[level], value());
            } else if (destination != null && depth >= 2) {
                if (destination.size() < MAX_VALUES) {
                    destination.putIfAbsent(path(level).substring(DESTINATION.length()), trimmed());
                }
            } else if (v.size() < MAX_VALUES) {
                v.putIfAbsent(path(level), trimmed());
            }
        }
        clearText();
    }

    /** Whether the open element at {@code level} (2) is {@code /parent/name}, without making its path. */
    private boolean is(int level, String parent, String name) {
        return name.equals(nameAt[level]) && parent.equals(nameAt[level - 1]);
    }

    /** The path of the open element at {@code level}, made when first asked for. */
    private String path(int level) {
        int known = level;
        while (pathAt[known] == null) {
            known--; // pathAt[0] is ""
        }
        for (int l = known + 1; l <= level; l++) {
            pathAt[l] = child(pathAt[l - 1], nameAt[l]);
        }
        return pathAt[level];
    }

    private void clearText() {
        text.setLength(0);
        piece = null;
        blanks = 0;
    }

    /** {@code parent + "/" + name}, the same string each time. */
    private String child(String parent, String name) {
        Map<String, String> children = childPaths.get(parent);
        String path = children == null ? null : children.get(name);
        if (path == null) {
            path = parent + "/" + name;
            if (paths < MAX_PATHS) {
                childPaths.computeIfAbsent(parent, p -> new HashMap<>()).put(name, path);
                paths++;
            }
        }
        return path;
    }

    private CharSequence value() {
        return piece != null ? piece : text;
    }

    private String trimmed() {
        return trim(value());
    }

    /** {@code FrameParser.parseInt(trim(text))} without the strings: a number, else 0. */
    static int lineNumber(CharSequence text) {
        int start = 0;
        int end = text.length();
        while (start < end && text.charAt(start) <= ' ') {
            start++;
        }
        while (end > start && text.charAt(end - 1) <= ' ') {
            end--;
        }
        for (int i = start; i < end; i++) {
            if (text.charAt(i) == ',') {
                return FrameParser.parseInt(trim(text)); // "1,234": the commas go first
            }
        }
        try {
            return Integer.parseInt(text, start, end, 10);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** {@code text.toString().trim()} with one copy. */
    static String trim(CharSequence s) {
        int start = 0;
        int end = s.length();
        while (start < end && s.charAt(start) <= ' ') {
            start++;
        }
        while (end > start && s.charAt(end - 1) <= ' ') {
            end--;
        }
        return s.subSequence(start, end).toString();
    }

    /**
     * The values of one {@code <frame>} that make a {@link Frame}, in fields instead of a map per frame
     * (the host frames are most of a record). It behaves as the map it replaces did: a later value of
     * the same element wins, and at most {@link #MAX_VALUES} distinct elements are taken, so a value
     * after that many other elements is dropped.
     */
    private static final class FrameValues {
        private String func;
        private String path;
        /** {@code <line>} as FrameParser.parseInt reads it, and whether there was one. */
        private int line;

        private boolean hasLine;
        private String module;
        /** Only whether the frame has a pc matters (a Python frame has none): its value is not kept. */
        private boolean pc;

        private int size;
        private Set<String> others;

        void clear() {
            func = null;
            path = null;
            line = 0;
            hasLine = false;
            module = null;
            pc = false;
            size = 0;
            others = null;
        }

        void put(String name, CharSequence text) {
            boolean present;
            switch (name) {
                case "func":
                    present = func != null;
                    break;
                case "path":
                    present = path != null;
                    break;
                case "line":
                    present = hasLine;
                    break;
                case "module":
                    present = module != null;
                    break;
                case "pc":
                    present = pc;
                    break;
                default:
                    present = others != null && others.contains(name);
                    if (!present && size < MAX_VALUES) {
                        if (others == null) {
                            others = new HashSet<>();
                        }
                        others.add(name);
                        size++;
                    }
                    return;
            }
            if (!present) {
                if (size >= MAX_VALUES) {
                    return;
                }
                size++;
            }
            switch (name) {
                case "func":
                    func = trim(text);
                    break;
                case "path":
                    path = trim(text);
                    break;
                case "line":
                    line = lineNumber(text);
                    hasLine = true;
                    break;
                case "module":
                    module = trim(text);
                    break;
                default:
                    pc = true;
                    break;
            }
        }

        Frame toFrame() {
            if (module == null && !pc && path != null) {
                return Frame.python(func, path, line);
            }
            return Frame.nativeFrame(func, path, line, module);
        }
    }
}
