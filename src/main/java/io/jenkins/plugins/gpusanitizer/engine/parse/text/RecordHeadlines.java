package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.FrameList;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A record's headline, the unindented line that opens it ({@code Invalid __global__ read of size 4
 * bytes}, {@code Program hit ... on CUDA API call to ...}, {@code Leaked ... bytes at ...}, racecheck's
 * hazard and race lines...): the tool that prints it, the kind of error and the message. One per
 * parse, for what it keeps from one record to the next.
 */
final class RecordHeadlines {
    private static final Pattern INVALID =
            Pattern.compile("^Invalid (?:(__\\w+__) )?(?:memory )?(\\w+)(?: access)? of size ([\\d,]+) bytes?.*");
    private static final Pattern API = Pattern.compile(
            "^Program hit (\\S+) \\(error (\\d+)\\) due to \"?(.*?)\"? on CUDA API call to (\\S+?)\\.?$");
    private static final Pattern LEAK = Pattern.compile("^Leaked ([\\d,]+) bytes? at (0x[0-9a-fA-F]+)(.*)$");
    private static final Pattern HAZARD = Pattern.compile(
            "^(Error|Warning|WARN|Information|INFO): ?(?:\\(([^)]*)\\) )?Potential (\\w+) hazard detected at (\\S+) (\\S+) in block \\(([^)]*)\\).*");
    private static final Pattern RACE =
            Pattern.compile("^(Error|Warning): Race reported between (\\w+) access at (.+)$");

    /** The native frames' bytes of one record after the other: built at once when the record ends. */
    private final FrameList.NativeTexts nativeTexts = new FrameList.NativeTexts();

    private String lastInvalidText;
    private boolean lastInvalid;
    /** Set by {@link #typed}: the last record's kind is printed only by its tool. */
    private boolean lastToolSpecific;

    /** Whether only its tool prints the kind of the record {@link #read} last returned. */
    boolean lastToolSpecific() {
        return lastToolSpecific;
    }

    /** The record the headline opens, with the tool that prints its kind; null when it opens none. */
    RecordBuilder read(String text) {
        // by the first letter: most lines of a log are not headlines, and most headlines are memcheck's accesses
        return switch (text.charAt(0)) {
            case 'I' -> invalidOrIllegal(text);
            case 'P' -> apiError(text);
            case 'L' -> leak(text);
            case 'W', 'B', 'D' -> assertBarrierOrWarning(text);
            case 'E' -> errorHazard(text);
            case 'U' -> initcheck(text);
            case 'M', 'H', 'F', 'O' -> otherMemcheck(text);
            default -> null;
        };
    }

    private RecordBuilder invalidOrIllegal(String text) {
        if (text.startsWith("Invalid ") && invalidAccess(text)) {
            return typed(Tool.MEMCHECK, Kind.INVALID_ACCESS, text, false);
        }
        if (text.startsWith("Illegal")) {
            return typed(Tool.MEMCHECK, Kind.HARDWARE_EXCEPTION, text, false);
        }
        return null;
    }

    private RecordBuilder apiError(String text) {
        Matcher m;
        if (text.startsWith("Program hit ") && (m = API.matcher(text)).matches()) {
            RecordBuilder r =
                    typed(Tool.MEMCHECK, Kind.API_ERROR, m.group(1) + " on CUDA API call to " + m.group(4), false);
            r.addDetail(text);
            return r;
        }
        return null;
    }

    private RecordBuilder leak(String text) {
        Matcher m = LEAK.matcher(text);
        if (!m.matches()) {
            return null;
        }
        RecordBuilder r = typed(
                Tool.MEMCHECK,
                Kind.LEAK,
                m.group(3).contains("device heap") ? "Leaked memory on the device heap" : "Leaked device memory",
                false);
        r.addDetail("Leaked " + m.group(1) + " bytes");
        return r;
    }

    /** A device assert, synccheck's barrier error, racecheck's warning-level hazard or race. */
    private RecordBuilder assertBarrierOrWarning(String text) {
        Matcher m;
        if (text.endsWith(" assert") || text.startsWith("Warp assert") || text.startsWith("Device assert")) {
            return typed(Tool.MEMCHECK, Kind.DEVICE_ASSERT, text, false);
        }
        if (text.startsWith("Barrier error") || text.startsWith("Warpgroup MMA")) {
            return typed(Tool.SYNCCHECK, Kind.BARRIER_ERROR, text.replaceAll("\\.$", ""), true);
        }
        if ((text.startsWith("Warning") || text.startsWith("WARN")) && (m = HAZARD.matcher(text)).matches()) {
            return hazard(m);
        }
        if (text.startsWith("Warning: Race reported") && (m = RACE.matcher(text)).matches()) {
            return race(m);
        }
        return null;
    }

    /** racecheck's error-level hazard or race. */
    private RecordBuilder errorHazard(String text) {
        Matcher m;
        if (text.startsWith("Error: Potential") && (m = HAZARD.matcher(text)).matches()) {
            return hazard(m);
        }
        if (text.startsWith("Error: Race reported") && (m = RACE.matcher(text)).matches()) {
            return race(m);
        }
        return null;
    }

    private RecordBuilder initcheck(String text) {
        if (text.startsWith("Uninitialized")) {
            return typed(Tool.INITCHECK, Kind.UNINITIALIZED_READ, text, true);
        }
        if (text.startsWith("Unused")) {
            RecordBuilder r = typed(Tool.INITCHECK, Kind.UNUSED_MEMORY, "Unused memory in allocation", true);
            r.addDetail(text);
            return r;
        }
        return null;
    }

    /** memcheck's other headlines: device heap errors, misaligned accesses, hardware exceptions. */
    private RecordBuilder otherMemcheck(String text) {
        if (text.startsWith("Malloc/Free error")) {
            return typed(Tool.MEMCHECK, Kind.MALLOC_FREE_ERROR, text, false);
        }
        if (text.startsWith("Misaligned")) {
            return typed(Tool.MEMCHECK, Kind.MISALIGNED, text, false);
        }
        if (text.startsWith("Host API memory access error")) {
            return typed(Tool.MEMCHECK, Kind.INVALID_ACCESS, "Host API memory access error", false);
        }
        if (text.startsWith("Hardware exception")
                || text.startsWith("Hardware Exception")
                || text.startsWith("Fatal UVM")
                || text.startsWith("Out-of-range")) {
            return typed(Tool.MEMCHECK, Kind.HARDWARE_EXCEPTION, text, false);
        }
        return null;
    }

    /** Whether the headline is memcheck's invalid access; the last answer is kept: a log repeats its headlines. */
    private boolean invalidAccess(String text) {
        if (!text.equals(lastInvalidText)) {
            lastInvalidText = text;
            lastInvalid = INVALID.matcher(text).matches();
        }
        return lastInvalid;
    }

    /** @param toolSpecific true when only that tool prints this kind of record */
    private RecordBuilder typed(Tool natural, Kind kind, String message, boolean toolSpecific) {
        lastToolSpecific = toolSpecific;
        return new RecordBuilder(natural, kind, message, nativeTexts);
    }

    /** Racecheck's {@code Potential RAW hazard detected at __shared__ 0x0 in block (0,0,0)}. */
    private RecordBuilder hazard(Matcher m) {
        RecordBuilder r =
                typed(Tool.RACECHECK, Kind.RACE, "Potential " + m.group(3) + " hazard at " + m.group(4), true);
        r.severityError = m.group(1).startsWith("E");
        r.block = "(" + m.group(6).replace(" ", "") + ")";
        return r;
    }

    /** Racecheck's {@code Race reported between Write access at ...}; its second access follows on a detail line. */
    private RecordBuilder race(Matcher m) {
        RecordBuilder r = typed(Tool.RACECHECK, Kind.RACE, "Race reported between " + m.group(2) + " accesses", true);
        r.severityError = m.group(1).startsWith("E");
        AtLine.apply(r, "at " + m.group(3));
        return r;
    }
}
