package io.jenkins.plugins.gpusanitizer.engine.parse.text;

/**
 * A record's {@code by thread (129,0,0) in block (2089,0,0)} line, blanks dropped from both. Cut by
 * hand, as the pattern {@code ^by thread \(([^)]*)\) in block \(([^)]*)\)} found it: the first
 * {@code )} ends each group, so there is one way to match.
 */
record ThreadLine(String thread, String block) {
    private static final String HEAD = "by thread (";
    private static final String MIDDLE = ") in block (";

    /** The line read, or null when it is not of this form. */
    static ThreadLine parse(String text) {
        if (!text.startsWith(HEAD)) {
            return null;
        }
        int close = text.indexOf(')', HEAD.length());
        if (close < 0 || !text.startsWith(MIDDLE, close)) {
            return null;
        }
        int blockStart = close + MIDDLE.length();
        int blockEnd = text.indexOf(')', blockStart);
        if (blockEnd < 0) {
            return null;
        }
        return new ThreadLine(parenthesised(text, HEAD.length(), close), parenthesised(text, blockStart, blockEnd));
    }

    /** {@code "(" + text.substring(from, to).replace(" ", "") + ")"}. */
    private static String parenthesised(String text, int from, int to) {
        StringBuilder sb = new StringBuilder(to - from + 2).append('(');
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c != ' ') {
                sb.append(c);
            }
        }
        return sb.append(')').toString();
    }

    void applyTo(RecordBuilder r) {
        r.thread = thread;
        r.block = block;
    }
}
