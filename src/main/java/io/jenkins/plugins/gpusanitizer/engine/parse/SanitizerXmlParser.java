package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Streams compute-sanitizer's {@code --xml --save} file with StAX. DTDs and external entities are
 * off (the file is untrusted). A file cut off mid-record (a killed tool) keeps its complete records
 * and is flagged incomplete. The XML holds only the printed records and no summary, so
 * {@code errorsTotal} is always null here: the total comes from the text output.
 */
public final class SanitizerXmlParser {
    private static final int MAX_DESTINATIONS = 16;
    private static final int MAX_TEXT = 16 * 1024;
    private static final int MAX_PROBLEMS = 10;

    private final XMLInputFactory factory;

    public SanitizerXmlParser() {
        factory = XMLInputFactory.newFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        factory.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        factory.setProperty(XMLInputFactory.IS_COALESCING, true);
    }

    public SanitizerOutput parse(Path file, Tool hint, Consumer<SanitizerRecord> sink) {
        return InputFiles.read(file, in -> {
            if (Files.size(file) == 0) {
                throw new InputException(file, "empty file, expected compute-sanitizer XML (--xml --save)");
            }
            return parse(in, file, hint, sink);
        });
    }

    public SanitizerOutput parse(InputStream in, Path name, Tool hint, Consumer<SanitizerRecord> sink) {
        List<String> problems = new ArrayList<>();
        Map<Tool, Integer> typed = new HashMap<>();
        long records = 0;
        boolean rootSeen = false;
        boolean closed = false;
        XMLStreamReader r = null;
        try {
            r = factory.createXMLStreamReader(in);
            while (r.hasNext()) {
                int ev = r.next();
                if (ev == XMLStreamConstants.DTD) {
                    problems.add("DOCTYPE ignored (DTDs are not processed)");
                } else if (ev == XMLStreamConstants.ENTITY_REFERENCE) {
                    problems.add("entity reference &" + r.getLocalName() + "; not expanded");
                } else if (ev == XMLStreamConstants.START_ELEMENT) {
                    String el = r.getLocalName();
                    if (!rootSeen) {
                        if (!"ComputeSanitizerOutput".equals(el)) {
                            throw new InputException(
                                    name,
                                    "not compute-sanitizer XML (root element <" + el
                                            + ">, expected <ComputeSanitizerOutput>)");
                        }
                        rootSeen = true;
                    } else if ("record".equals(el)) {
                        SanitizerRecord rec = readRecord(r, hint);
                        if (rec.tool() != null) {
                            typed.merge(rec.tool(), 1, Integer::sum);
                        }
                        records++;
                        sink.accept(rec);
                    }
                } else if (ev == XMLStreamConstants.END_ELEMENT && "ComputeSanitizerOutput".equals(r.getLocalName())) {
                    closed = true;
                }
            }
        } catch (XMLStreamException | RuntimeException e) {
            if (e instanceof InputException ie) {
                throw ie;
            }
            if (!rootSeen) {
                throw new InputException(name, "not compute-sanitizer XML: " + oneLine(e.getMessage()));
            }
            if (problems.size() < MAX_PROBLEMS) {
                problems.add("XML cut off or malformed after " + records + " complete record(s): "
                        + oneLine(e.getMessage()));
            }
        } finally {
            if (r != null) {
                try {
                    r.close();
                } catch (XMLStreamException ignored) {
                    // nothing to keep from a failed close
                }
            }
        }
        if (!rootSeen) {
            throw new InputException(name, "not compute-sanitizer XML (no <ComputeSanitizerOutput> element)");
        }
        if (!closed && problems.stream().noneMatch(p -> p.startsWith("XML cut off"))) {
            problems.add("XML cut off after " + records + " complete record(s): no closing </ComputeSanitizerOutput>");
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
                problems);
    }

    /** Reads one {@code <record>} (the reader is on its start tag) into a record. */
    private SanitizerRecord readRecord(XMLStreamReader r, Tool hint) throws XMLStreamException {
        Map<String, String> v = new HashMap<>();
        List<Frame> frames = new ArrayList<>();
        Map<String, String> frame = null;
        // racecheck's Analysis records hold one <source> and several <destination> accesses
        List<Map<String, String>> destinations = new ArrayList<>();
        Map<String, String> destination = null;
        // the element path below <record>, kept incrementally: "/hostStack/frame/func"
        StringBuilder path = new StringBuilder(64);
        int[] marks = new int[16];
        boolean[] hasChild = new boolean[16];
        StringBuilder text = new StringBuilder(64);
        int depth = 0;
        while (true) {
            if (!r.hasNext()) {
                throw new XMLStreamException("record not closed");
            }
            int ev = r.next();
            if (ev == XMLStreamConstants.START_ELEMENT) {
                if (depth > 0) {
                    hasChild[depth - 1] = true;
                }
                if (depth == marks.length) {
                    marks = java.util.Arrays.copyOf(marks, depth * 2);
                    hasChild = java.util.Arrays.copyOf(hasChild, depth * 2);
                }
                marks[depth] = path.length();
                hasChild[depth] = false;
                depth++;
                path.append('/').append(r.getLocalName());
                text.setLength(0);
                if (depth == 2 && "/hostStack/frame".contentEquals(path)) {
                    frame = new HashMap<>();
                } else if (depth == 2 && "/what/destination".contentEquals(path)) {
                    destination = new HashMap<>();
                }
            } else if (ev == XMLStreamConstants.CHARACTERS || ev == XMLStreamConstants.CDATA) {
                if (text.length() < MAX_TEXT) {
                    int n = Math.min(r.getTextLength(), MAX_TEXT - text.length());
                    text.append(r.getTextCharacters(), r.getTextStart(), n);
                }
            } else if (ev == XMLStreamConstants.END_ELEMENT) {
                if (depth == 0) {
                    return toRecord(v, frames, destinations, hint); // </record>
                }
                depth--;
                if (frame != null && depth == 1 && "/hostStack/frame".contentEquals(path)) {
                    if (frames.size() < SanitizerRecord.MAX_FRAMES) {
                        frames.add(toFrame(frame));
                    }
                    frame = null;
                } else if (destination != null && depth == 1 && "/what/destination".contentEquals(path)) {
                    if (destinations.size() < MAX_DESTINATIONS) {
                        destinations.add(destination);
                    }
                    destination = null;
                } else if (!hasChild[depth]) {
                    String value = text.toString().trim();
                    if (frame != null && depth == 2) {
                        frame.put(r.getLocalName(), value);
                    } else if (destination != null && depth >= 2) {
                        destination.putIfAbsent(path.substring("/what/destination".length()), value);
                    } else {
                        v.putIfAbsent(path.toString(), value);
                    }
                }
                path.setLength(marks[depth]);
                text.setLength(0);
            }
        }
    }

    private static Frame toFrame(Map<String, String> f) {
        String path = f.get("path");
        int line = f.containsKey("line") ? FrameParser.parseInt(f.get("line")) : 0;
        if (f.get("module") == null && f.get("pc") == null && path != null) {
            return Frame.python(f.get("func"), path, line);
        }
        return Frame.nativeFrame(f.get("func"), path, line, f.get("module"));
    }

    private static SanitizerRecord toRecord(
            Map<String, String> v, List<Frame> frames, List<Map<String, String>> destinations, Tool hint) {
        String kindName = v.getOrDefault("/kind", "");
        String text = v.getOrDefault("/what/text", kindName);
        Tool tool = hint == null ? Tool.MEMCHECK : hint;
        Kind kind;
        String message = text;
        switch (kindName) {
            case "Precise": {
                String error = v.getOrDefault("/what/error", "").toLowerCase(Locale.ROOT);
                kind = error.contains("misaligned")
                        ? Kind.MISALIGNED
                        : error.contains("out of bounds") ? Kind.OUT_OF_BOUNDS : Kind.INVALID_ACCESS;
                if (text.startsWith("Uninitialized")) {
                    kind = Kind.UNINITIALIZED_READ;
                    tool = Tool.INITCHECK;
                } else if (v.containsKey("/what/size")) {
                    message = "Invalid " + v.getOrDefault("/what/space", "") + " "
                            + v.getOrDefault("/what/direction", "access") + " of size " + v.get("/what/size")
                            + " bytes";
                    message = message.replace("Invalid  ", "Invalid ");
                }
                break;
            }
            case "Imprecise": {
                // device exceptions without a precise address; a device-side assert is "Warp assert"
                String exception = v.getOrDefault("/what/exception", text);
                kind = exception.toLowerCase(Locale.ROOT).contains("assert")
                        ? Kind.DEVICE_ASSERT
                        : Kind.HARDWARE_EXCEPTION;
                message = exception;
                break;
            }
            case "Api":
                kind = Kind.API_ERROR;
                message = v.getOrDefault("/what/error", "API error") + " on CUDA API call to "
                        + v.getOrDefault("/what/api", "?");
                break;
            case "Leak":
                kind = Kind.LEAK;
                message = "Leaked device memory";
                break;
            case "Synccheck":
                kind = Kind.BARRIER_ERROR;
                tool = Tool.SYNCCHECK;
                message = text + (v.containsKey("/what/type") ? " detected. " + v.get("/what/type") : "");
                break;
            case "Analysis":
            case "Hazard":
            case "Race":
                kind = Kind.RACE;
                tool = Tool.RACECHECK;
                break;
            case "Initcheck":
            case "Uninitialized":
                kind = text.startsWith("Unused") ? Kind.UNUSED_MEMORY : Kind.UNINITIALIZED_READ;
                tool = Tool.INITCHECK;
                break;
            default:
                String lower = text.toLowerCase(Locale.ROOT);
                kind = lower.contains("assert")
                        ? Kind.DEVICE_ASSERT
                        : lower.contains("malloc") || lower.contains("free")
                                ? Kind.MALLOC_FREE_ERROR
                                : lower.contains("exception") || lower.contains("illegal")
                                        ? Kind.HARDWARE_EXCEPTION
                                        : Kind.OTHER;
                break;
        }
        String thread = dim(v, "/who/threadIdx");
        String block = dim(v, "/who/blockIdx");
        // a race's place is its source access (racecheck has no <where> of its own, and no host stack)
        String where = kind != Kind.RACE
                ? "/where"
                : v.containsKey("/what/source/where/func")
                        ? "/what/source/where" // analysis mode (the default)
                        : v.containsKey("/what/thread0/where/func") ? "/what/thread0/where" : "/where"; // hazard mode
        String kernel = v.get(where + "/func");
        SourceLocation device = v.containsKey(where + "/path")
                ? SourceLocation.of(
                        v.get(where + "/path"), FrameParser.parseInt(v.getOrDefault(where + "/line", "0")), kernel)
                : null;
        StringBuilder detail = new StringBuilder();
        if (kind == Kind.RACE && v.containsKey("/what/source/direction")) {
            message = raceMessage(v, destinations);
            detail.append(raceDetail(v, destinations));
        } else if (kind == Kind.RACE && v.containsKey("/what/thread0/access")) {
            detail.append(v.getOrDefault("/what/common/type", "hazard"))
                    .append(": ")
                    .append(v.get("/what/thread0/access"))
                    .append(" at ")
                    .append(place(v, "/what/thread0/where"))
                    .append(" -> ")
                    .append(v.getOrDefault("/what/thread1/access", "?"))
                    .append(" at ")
                    .append(place(v, "/what/thread1/where"));
        }
        if (v.containsKey("/what/address") && kind != Kind.LEAK) {
            detail.append("Address ").append(v.get("/what/address"));
            if (v.containsKey("/what/error")) {
                detail.append(" is ").append(v.get("/what/error"));
            }
        }
        if (kind == Kind.LEAK && v.containsKey("/what/size")) {
            detail.append("Leaked ").append(v.get("/what/size")).append(" bytes");
        }
        if (kind == Kind.API_ERROR) {
            detail.append(text);
        }
        boolean error = !"Warning".equalsIgnoreCase(v.getOrDefault("/level", "Error"));
        return new SanitizerRecord(
                tool,
                kind,
                message,
                kernel,
                v.get(where + "/pc"),
                device,
                thread,
                block,
                detail.length() == 0 ? null : detail.toString(),
                frames,
                error);
    }

    /** As the text log says it: {@code Race reported between Write and Read accesses}. */
    private static String raceMessage(Map<String, String> v, List<Map<String, String>> destinations) {
        String source = v.get("/what/source/direction");
        String targets = destinations.stream()
                .map(d -> d.get("/direction"))
                .filter(java.util.Objects::nonNull)
                .distinct()
                .filter(d -> !d.equals(source))
                .collect(java.util.stream.Collectors.joining(" and "));
        return "Race reported between " + source + (targets.isEmpty() ? "" : " and " + targets) + " accesses";
    }

    /** Each access pair with its place and hazard count: {@code Write at k+0x200 -> Read at k.cu:12 (16384 hazards)}. */
    private static String raceDetail(Map<String, String> v, List<Map<String, String>> destinations) {
        String source = v.get("/what/source/direction") + " at " + place(v, "/what/source/where");
        long total = 0;
        List<String> pairs = new ArrayList<>();
        for (Map<String, String> d : destinations) {
            long count = FrameParser.parseLong(d.getOrDefault("/count", "0"));
            total += Math.max(count, 0);
            pairs.add(source + " -> " + d.getOrDefault("/direction", "?") + " at " + place(d, "/where") + " (" + count
                    + " hazards)");
        }
        return total + " hazards" + (pairs.isEmpty() ? "" : ": " + String.join("; ", pairs));
    }

    private static String place(Map<String, String> v, String where) {
        String func = v.getOrDefault(where + "/func", "?");
        if (v.containsKey(where + "/path")) {
            return func + " at " + Frame.baseName(v.get(where + "/path")) + ":" + v.getOrDefault(where + "/line", "0");
        }
        return func + "+" + v.getOrDefault(where + "/pc", "?");
    }

    private static String dim(Map<String, String> v, String prefix) {
        if (!v.containsKey(prefix + "/x")) {
            return null;
        }
        return "(" + v.get(prefix + "/x") + "," + v.getOrDefault(prefix + "/y", "0") + ","
                + v.getOrDefault(prefix + "/z", "0") + ")";
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        String one = s.replaceAll("\\s+", " ").trim();
        return one.length() > 200 ? one.substring(0, 200) + "..." : one;
    }
}
