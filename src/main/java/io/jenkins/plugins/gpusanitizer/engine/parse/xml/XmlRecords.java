package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What the values of one XML {@code <record>} (keyed by their path below it) say: kind, message, place. */
final class XmlRecords {
    private XmlRecords() {}

    static SanitizerRecord toRecord(
            Map<String, String> v, List<Frame> frames, List<Map<String, String>> destinations, Tool hint) {
        Classified c = classify(v, hint == null ? Tool.MEMCHECK : hint);
        String where = where(v, c.kind());
        String kernel = v.get(where + "/func");
        SourceLocation device = v.containsKey(where + "/path")
                ? SourceLocation.of(
                        v.get(where + "/path"), FrameParser.parseInt(v.getOrDefault(where + "/line", "0")), kernel)
                : null;
        boolean analysedRace = c.kind() == Kind.RACE && v.containsKey("/what/source/direction");
        String detail = detail(v, c.kind(), destinations);
        boolean error = !"Warning".equalsIgnoreCase(v.getOrDefault("/level", "Error"));
        return new SanitizerRecord(
                c.tool(),
                c.kind(),
                analysedRace ? raceMessage(v, destinations) : c.message(),
                kernel,
                v.get(where + "/pc"),
                device,
                dim(v, "/who/threadIdx"),
                dim(v, "/who/blockIdx"),
                detail.isEmpty() ? null : detail,
                frames,
                error);
    }

    /** What the record's kind says: the record kind, the tool that wrote it, its message as the text log has it. */
    private record Classified(Kind kind, Tool tool, String message) {}

    private static Classified classify(Map<String, String> v, Tool tool) {
        String kindName = v.getOrDefault("/kind", "");
        String text = v.getOrDefault("/what/text", kindName);
        return switch (kindName) {
            case "Precise" -> precise(v, text, tool);
            case "Imprecise" -> {
                // device exceptions without a precise address; a device-side assert is "Warp assert"
                String exception = v.getOrDefault("/what/exception", text);
                yield new Classified(
                        exception.toLowerCase(Locale.ROOT).contains("assert")
                                ? Kind.DEVICE_ASSERT
                                : Kind.HARDWARE_EXCEPTION,
                        tool,
                        exception);
            }
            case "Api" ->
                new Classified(
                        Kind.API_ERROR,
                        tool,
                        v.getOrDefault("/what/error", "API error") + " on CUDA API call to "
                                + v.getOrDefault("/what/api", "?"));
            case "Leak" -> new Classified(Kind.LEAK, tool, "Leaked device memory");
            case "Synccheck" ->
                new Classified(
                        Kind.BARRIER_ERROR,
                        Tool.SYNCCHECK,
                        text + (v.containsKey("/what/type") ? " detected. " + v.get("/what/type") : ""));
            case "Analysis", "Hazard", "Race" -> new Classified(Kind.RACE, Tool.RACECHECK, text);
            case "Initcheck", "Uninitialized" ->
                new Classified(
                        text.startsWith("Unused") ? Kind.UNUSED_MEMORY : Kind.UNINITIALIZED_READ, Tool.INITCHECK, text);
            default -> new Classified(byText(text.toLowerCase(Locale.ROOT)), tool, text);
        };
    }

    /** An access with its address: out of bounds, misaligned, or (initcheck) an uninitialized read. */
    private static Classified precise(Map<String, String> v, String text, Tool tool) {
        if (text.startsWith("Uninitialized")) {
            return new Classified(Kind.UNINITIALIZED_READ, Tool.INITCHECK, text);
        }
        String error = v.getOrDefault("/what/error", "").toLowerCase(Locale.ROOT);
        Kind kind = error.contains("misaligned")
                ? Kind.MISALIGNED
                : error.contains("out of bounds") ? Kind.OUT_OF_BOUNDS : Kind.INVALID_ACCESS;
        if (!v.containsKey("/what/size")) {
            return new Classified(kind, tool, text);
        }
        String message = "Invalid " + v.getOrDefault("/what/space", "") + " "
                + v.getOrDefault("/what/direction", "access") + " of size " + v.get("/what/size")
                + " bytes";
        return new Classified(kind, tool, message.replace("Invalid  ", "Invalid "));
    }

    /** A record kind this reader does not know, by its words. */
    private static Kind byText(String lower) {
        return lower.contains("assert")
                ? Kind.DEVICE_ASSERT
                : lower.contains("malloc") || lower.contains("free")
                        ? Kind.MALLOC_FREE_ERROR
                        : lower.contains("exception") || lower.contains("illegal")
                                ? Kind.HARDWARE_EXCEPTION
                                : Kind.OTHER;
    }

    /** Where the record's place is: a race's is its source access (racecheck has no {@code <where>} of its own). */
    private static String where(Map<String, String> v, Kind kind) {
        if (kind != Kind.RACE) {
            return "/where";
        }
        return v.containsKey("/what/source/where/func")
                ? "/what/source/where" // analysis mode (the default)
                : v.containsKey("/what/thread0/where/func") ? "/what/thread0/where" : "/where"; // hazard mode
    }

    /** A race's accesses and hazards, the address and what is wrong with it, a leak's size, an API error's text. */
    private static String detail(Map<String, String> v, Kind kind, List<Map<String, String>> destinations) {
        StringBuilder detail = new StringBuilder();
        if (kind == Kind.RACE && v.containsKey("/what/source/direction")) {
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
            String kindName = v.getOrDefault("/kind", "");
            detail.append(v.getOrDefault("/what/text", kindName));
        }
        return detail.toString();
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
}
