package io.jenkins.plugins.gpusanitizer.engine.run.environment;

/** A short probe command's exit code and output (-1: timed out, -2: could not be started). */
record CommandOutput(int exitCode, String output) {

    String firstLine() {
        String t = output.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }
}
