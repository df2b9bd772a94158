package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Separates device-assert lines from traceback lines printed at the same moment. The GPU's assert
 * text reaches stderr from the driver while Python writes the traceback, and the two can come out
 * mixed: a whole assert line inside a traceback line (cutting it in two), or traceback lines inside
 * an assert line whose characters arrive one by one. An assert line has a fixed shape, so its
 * pieces are recognised, put back together and passed on as their own line; what the traceback
 * wrote is passed on without them.
 */
final class DeviceAssertUntangler {
    private static final Pattern EMBEDDED_ASSERTION = Pattern.compile(
            "/\\S*?:\\d+: [^:`]+?: block: \\[\\d+,\\d+,\\d+\\], thread: \\[\\d+,\\d+,\\d+\\] Assertion `.*?` failed\\.");
    private static final Pattern DEVICE_LINE = Pattern.compile(
            "/\\S*:\\d+: [^:`]+?: block: \\[\\d+,\\d+,\\d+\\], thread: \\[\\d+,\\d+,\\d+\\] Assertion `.*` failed\\.");
    /** Where a line of the traceback (or of PyTorch's message under it) can begin. */
    private static final Pattern TRACEBACK_START = Pattern.compile(
            "Traceback \\(most recent call last\\):"
                    + "|  File \"| {4,}(?=\\S)|\\[[A-Za-z_]*\\d+\\]:|[A-Za-z_][\\w.]*(?:Error|Exception|Exit|Interrupt): "
                    + "|Search for `|CUDA kernel errors|For debugging consider|Compile with `|During handling of|The above exception");

    private static final Pattern DEVICE_FILE_LINE = Pattern.compile("/\\S*?:\\d+: ");
    /**
     * Where the sources of device code usually lie (PyTorch's build tree, Inductor's cache, home and
     * build folders): picks the start of a device path glued to the end of a cut traceback path.
     */
    private static final Pattern DEVICE_ROOT =
            Pattern.compile("/(?:tmp|pytorch|root|home|opt|usr|var|workspace|data|mnt|scratch|build|src|builds|app)/");

    private static final int MAX_PENDING_LINES = 6;
    private static final int MAX_SPLITS = 32;
    private static final int MAX_PENDING_CHARS = 8192;

    private final Consumer<String> out;
    /** The start of a traceback line that a device line cut off. */
    private String carry;
    /** A device line that ended a traceback line's first part: (that part, the device line) per possible split. */
    private List<String[]> cut;
    /** The start of a device line, waiting for the rest. */
    private String device;

    private int deviceLines;
    /** The device text's last space was taken from a run of spaces the traceback line shared. */
    private boolean borrowed;

    DeviceAssertUntangler(Consumer<String> out) {
        this.out = out;
    }

    void accept(String physical) {
        String line = withPending(physical);
        if (line.length() > MAX_PENDING_CHARS) {
            // no mixing is looked for in long lines: the searches below would cost too much
            deviceLines = 0;
            out.accept(line);
            return;
        }
        if (line.indexOf("Assertion `") >= 0 && !DEVICE_LINE.matcher(line).matches()) {
            line = withoutEmbeddedAssertions(line);
            if (line == null) {
                return;
            }
        }
        if (line.startsWith("/") && !DEVICE_LINE.matcher(line).matches() && heldDeviceStart(line)) {
            return;
        }
        deviceLines = 0;
        out.accept(line);
    }

    /** The physical line with what earlier lines left pending: a cut device line, a traceback's start, a device start. */
    private String withPending(String physical) {
        String line = physical;
        if (cut != null) {
            // where the device path began: the first split whose device path starts at a usual source root
            int chosen = 0;
            for (int i = 0; i < cut.size(); i++) {
                if (DEVICE_ROOT.matcher(cut.get(i)[1]).lookingAt()) {
                    chosen = i;
                    break;
                }
            }
            out.accept(cut.get(chosen)[1]);
            carry = cut.get(chosen)[0].isEmpty() ? null : cut.get(chosen)[0];
            cut = null;
        }
        if (carry != null) {
            line = carry + line;
            carry = null;
        }
        if (device != null) {
            // a space given to the device text at a split that turns out to have come after it
            line = (borrowed && line.startsWith(" ") ? device.substring(0, device.length() - 1) : device) + line;
            device = null;
            borrowed = false;
        }
        return line;
    }

    /**
     * Passes on each whole device line inside the line and returns what the traceback wrote around them; null when
     * nothing is to be passed on yet (a device line ends the line, or nothing but device lines was in it).
     */
    private String withoutEmbeddedAssertions(String line) {
        Matcher m = EMBEDDED_ASSERTION.matcher(line);
        StringBuilder rest = null;
        int from = 0;
        while (m.find()) {
            rest = rest == null ? new StringBuilder() : rest;
            if (m.end() == line.length() && m.start() > 0) {
                // the device line's newline ended this line, whose rest is on the next one; a
                // traceback path cut there runs into the device path: each '/' may be its start
                cut = new ArrayList<>();
                for (int s = m.start(); s >= 0 && cut.size() < MAX_SPLITS; s = line.indexOf('/', s + 1)) {
                    if (DEVICE_LINE.matcher(line).region(s, line.length()).matches()) {
                        cut.add(new String[] {rest + line.substring(from, s), line.substring(s)});
                    }
                }
                deviceLines = 0;
                return null;
            }
            out.accept(m.group());
            rest.append(line, from, m.start());
            from = m.end();
        }
        if (rest == null) {
            return line;
        }
        deviceLines = 0;
        if (from == line.length()) {
            if (rest.length() > 0) {
                carry = rest.toString();
            }
            return null;
        }
        return rest.append(line, from, line.length()).toString();
    }

    /**
     * A line that starts with a device line's start: the traceback's line after it is passed on and the start held
     * for the rest; alone on its line, the start is held. Returns whether the line was taken.
     */
    private boolean heldDeviceStart(String line) {
        Matcher t = TRACEBACK_START.matcher(line);
        while (t.find()) {
            int p = splitPoint(line, t);
            if (p > 0 && isDevicePrefix(line.substring(0, p))) {
                device = line.substring(0, p);
                borrowed = p > t.start() && line.charAt(t.start()) == ' ' && line.charAt(p) == ' ';
                deviceLines++;
                out.accept(line.substring(p));
                return true;
            }
        }
        // alone on its line (a blank traceback line cut it): only with its file:line, a bare path is no device line
        if (DEVICE_FILE_LINE.matcher(line).lookingAt()
                && isDevicePrefix(line)
                && deviceLines < MAX_PENDING_LINES
                && line.length() < MAX_PENDING_CHARS) {
            device = line;
            deviceLines++;
            return true;
        }
        return false;
    }

    /**
     * Where the traceback's line begins. A run of spaces is shared: a source line has exactly four in
     * front; a caret line more, and the device text gives it at most the one space its format puts
     * after a comma or a colon.
     */
    private static int splitPoint(String line, Matcher t) {
        if (line.charAt(t.start()) != ' ' || line.startsWith("  File \"", t.start())) {
            return t.start();
        }
        int code = t.end();
        char c = line.charAt(code);
        if (c != '^' && c != '~') {
            return code - 4;
        }
        char before = t.start() > 0 ? line.charAt(t.start() - 1) : ' ';
        return Math.min(t.start() + (before == ',' || before == ':' || before == ']' ? 1 : 0), code - 4);
    }

    /** Could the text be the beginning of a device assert line? */
    private static boolean isDevicePrefix(String s) {
        Matcher m = DEVICE_LINE.matcher(s);
        return !m.matches() && m.hitEnd();
    }

    void flush() {
        if (cut != null) {
            out.accept(cut.get(0)[1]);
            if (!cut.get(0)[0].isEmpty()) {
                out.accept(cut.get(0)[0]);
            }
            cut = null;
        }
        if (device != null) {
            out.accept(device);
            device = null;
        }
        if (carry != null) {
            out.accept(carry);
            carry = null;
        }
    }
}
