package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A record's {@code at kernel+0x160 in file.cu:10} line (or the older {@code at 0x160 in kernel}):
 * where on the device the error happened.
 *
 * @param device the device source line when printed, else null (then a record keeps the one it has)
 */
record AtLine(String kernel, String pc, SourceLocation device) {
    static final Pattern AT = Pattern.compile("^at (.+?)\\+(0x[0-9a-fA-F]+)(?: in (.+):(\\d+))?$");
    private static final Pattern AT_OLD = Pattern.compile("^at (0x[0-9a-fA-F]+) in (.+)$");

    /** The line read, or null when it is neither form. */
    static AtLine parse(String text) {
        Matcher m = AT.matcher(text);
        if (m.matches()) {
            return new AtLine(
                    m.group(1),
                    m.group(2),
                    m.group(3) == null ? null : SourceLocation.of(m.group(3), FrameParser.parseInt(m.group(4)), null));
        }
        m = AT_OLD.matcher(text);
        if (m.matches()) {
            return new AtLine(m.group(2), m.group(1), null);
        }
        return null;
    }

    /** Applies the line to the record when it is of either form, else leaves the record as it is. */
    static void apply(RecordBuilder r, String text) {
        AtLine at = parse(text);
        if (at != null) {
            at.applyTo(r);
        }
    }

    void applyTo(RecordBuilder r) {
        r.kernel = kernel;
        r.pc = pc;
        if (device != null) {
            r.deviceLocation = device;
        }
    }
}
