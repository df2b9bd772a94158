package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.regex.Matcher;

/**
 * What an indented line of a record says, other than its host frames: where on the device
 * ({@code at ...}, {@code Device Frame:}), which thread, what the address was (which may make an
 * invalid access out of bounds or misaligned), racecheck's details. Depends on the record only: the
 * frame lines that continue the line above are the state machine's ({@link TextLogState}).
 */
final class RecordDetails {
    private RecordDetails() {}

    static void apply(RecordBuilder r, String text) {
        ThreadLine t;
        if (text.startsWith("at ")) {
            AtLine.apply(r, text);
        } else if (text.startsWith("by thread") && (t = ThreadLine.parse(text)) != null) {
            t.applyTo(r);
        } else if (text.startsWith("Access to ") || text.startsWith("Address ")) {
            if (text.endsWith("is misaligned")) {
                r.kind = Kind.MISALIGNED;
            } else if (text.endsWith("is out of bounds") && r.kind == Kind.INVALID_ACCESS) {
                r.kind = Kind.OUT_OF_BOUNDS;
            }
            r.addDetail(text);
        } else if (text.startsWith("and is ")) {
            r.addDetail(text);
        } else if (text.startsWith("Device Frame:")) {
            deviceFrame(r, text);
        } else if (r.kind == Kind.RACE) {
            RacecheckDetails.apply(r, text);
        } else if (!text.startsWith("Saved host backtrace")) {
            r.addDetail(text);
        }
    }

    /** The first device frame with a source line, unless the record has a place; never __assertfail, the assert itself. */
    private static void deviceFrame(RecordBuilder r, String text) {
        if (r.deviceLocation == null) {
            Matcher d = AtLine.AT.matcher(
                    "at " + text.substring("Device Frame:".length()).trim());
            if (d.matches() && d.group(3) != null && !d.group(1).startsWith("__assertfail")) {
                r.deviceLocation = SourceLocation.of(d.group(3), FrameParser.parseInt(d.group(4)), d.group(1));
            }
        }
    }
}
