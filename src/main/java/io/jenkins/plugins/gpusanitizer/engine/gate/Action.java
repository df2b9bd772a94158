package io.jenkins.plugins.gpusanitizer.engine.gate;

import java.util.Locale;

/** What a kind of finding does to the verdict. */
public enum Action {
    FAIL, UNSTABLE, IGNORE;

    public static Action parse(String s) {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }
}
