package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The detail lines of a racecheck record: the threads of a hazard ({@code Write Thread (0,0,0) at
 * kernel+0x10 in file.cu:12}), of which the first names the kernel and where, and the second access
 * of a race ({@code and Read access at ... [4 hazards]}).
 */
final class RacecheckDetails {
    private static final Pattern HAZARD_THREAD =
            Pattern.compile("^(\\w+) Thread \\(([^)]*)\\) at (.+?)\\+(0x[0-9a-fA-F]+)(?: in (.+):(\\d+))?$");
    private static final Pattern RACE_AND = Pattern.compile("^and (\\w+) access at .*?(?:\\[([\\d,]+) hazards?\\])?$");

    private RacecheckDetails() {}

    static void apply(RecordBuilder r, String text) {
        Matcher m = HAZARD_THREAD.matcher(text);
        if (m.matches()) {
            if (r.kernel == null) {
                r.thread = "(" + m.group(2).replace(" ", "") + ")";
                r.kernel = m.group(3);
                r.pc = m.group(4);
                if (m.group(5) != null) {
                    r.deviceLocation = SourceLocation.of(m.group(5), FrameParser.parseInt(m.group(6)), m.group(3));
                }
            }
            return;
        }
        m = RACE_AND.matcher(text);
        if (m.matches()) {
            if (!r.message.contains(" and ")) {
                // "Race reported between Write access at ..." / "and Read access at ...": name the pair
                r.message = r.message.replace(" accesses", " and " + m.group(1) + " accesses");
            }
            if (m.group(2) != null) {
                r.addDetail(m.group(2) + " hazards");
            }
            return;
        }
        if (!text.startsWith("Current Value")) {
            r.addDetail(text);
        }
    }
}
