package io.jenkins.plugins.gpusanitizer.engine.gate;

/** The gate's answer, with the CLI exit code of each. */
public enum Verdict {
    PASS(0),
    FAIL(1),
    UNSTABLE(2),
    ERROR(3);

    private final int exitCode;

    Verdict(int exitCode) {
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
