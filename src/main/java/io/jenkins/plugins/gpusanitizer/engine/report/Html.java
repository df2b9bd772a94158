package io.jenkins.plugins.gpusanitizer.engine.report;

/**
 * HTML escaping for every string that came from a tool, a log or a user; Unicode bidi controls are
 * shown as their code points ({@link Bidi}), so they cannot reorder the text around them.
 */
public final class Html {
    private Html() {}

    public static String esc(Object o) {
        if (o == null) {
            return "";
        }
        String s = o.toString();
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String rep =
                    switch (c) {
                        case '<' -> "&lt;";
                        case '>' -> "&gt;";
                        case '&' -> "&amp;";
                        case '"' -> "&quot;";
                        case '\'' -> "&#39;";
                        case '`' -> "&#96;";
                        default -> null;
                    };
            if (rep == null && (c < 0x20 && c != '\n' && c != '\t')) {
                rep = "\uFFFD";
            } else if (rep == null && Bidi.isControl(c)) {
                rep = String.format("&lt;U+%04X&gt;", (int) c);
            }
            if (rep != null) {
                if (sb == null) {
                    sb = new StringBuilder(s.length() + 16);
                    sb.append(s, 0, i);
                }
                sb.append(rep);
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? s : sb.toString();
    }
}
