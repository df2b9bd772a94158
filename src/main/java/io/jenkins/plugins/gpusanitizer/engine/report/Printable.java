package io.jenkins.plugins.gpusanitizer.engine.report;

/**
 * Text that someone else wrote (a file in a shared folder, a holder's build tag) shown on one console line: no
 * control character reaches the terminal, so it can neither colour nor move nor break the line, nor forge a line
 * of ours. ESC is shown as {@code \e}, line breaks and tabs as {@code \n}, {@code \r}, {@code \t}, every other C0
 * or C1 control and DEL as {@code \xHH}, a backslash as {@code \\} (so that the escapes cannot be forged either),
 * bidi controls as {@code <U+XXXX>} ({@link Bidi}).
 */
public final class Printable {
    private Printable() {}

    /** The text escaped for one line; the same string when it needs nothing; null for null. */
    public static String oneLine(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String rep = escape(c);
            if (rep != null && sb == null) {
                sb = new StringBuilder(s.length() + 16).append(s, 0, i);
            }
            if (sb != null) {
                if (rep != null) {
                    sb.append(rep);
                } else {
                    sb.append(c);
                }
            }
        }
        return sb == null ? s : sb.toString();
    }

    private static String escape(char c) {
        switch (c) {
            case '\u001b':
                return "\\e";
            case '\n':
                return "\\n";
            case '\r':
                return "\\r";
            case '\t':
                return "\\t";
            case '\\':
                return "\\\\";
            default:
                if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
                    return String.format("\\x%02X", (int) c);
                }
                return Bidi.isControl(c) || c == '\u2028' || c == '\u2029' ? String.format("<U+%04X>", (int) c) : null;
        }
    }
}
