package io.jenkins.plugins.gpusanitizer.engine.report;

/**
 * Unicode bidirectional controls in tool-derived text (a kernel name, a path, a log line) can flip the
 * text around them when shown ("Trojan Source"). Before rendering (HTML, console), each is replaced by
 * its visible code point, e.g. {@code <U+202E>}, so what is shown is what the tool printed.
 */
public final class Bidi {
    private Bidi() {}

    static boolean isControl(char c) {
        return (c >= '\u202A' && c <= '\u202E')
                || (c >= '\u2066' && c <= '\u2069')
                || c == '\u200E'
                || c == '\u200F'
                || c == '\u061C';
    }

    /** The text with every bidi control shown as {@code <U+XXXX>}; the same string when it holds none. */
    public static String neutralise(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (isControl(c)) {
                if (sb == null) {
                    sb = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                sb.append(String.format("<U+%04X>", (int) c));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? s : sb.toString();
    }
}
