package io.jenkins.plugins.gpusanitizer.cli;

/** The CLI's exit codes: the verdict's (0 PASS, 1 FAIL, 2 UNSTABLE, 3 ERROR) and 64 for usage errors. */
public final class ExitCodes {
    public static final int PASS = 0;
    public static final int FAIL = 1;
    public static final int UNSTABLE = 2;
    public static final int ERROR = 3;
    /** BSD sysexits EX_USAGE. */
    public static final int USAGE = 64;

    private ExitCodes() {}
}
