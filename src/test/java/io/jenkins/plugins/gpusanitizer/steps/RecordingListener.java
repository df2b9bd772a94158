package io.jenkins.plugins.gpusanitizer.steps;

import hudson.model.TaskListener;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** A build's listener whose console a test reads back. */
final class RecordingListener implements TaskListener {
    private static final long serialVersionUID = 1L;

    private final transient ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final transient PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);

    @Override
    public PrintStream getLogger() {
        return out;
    }

    /** What was printed so far. */
    String console() {
        return log.toString(StandardCharsets.UTF_8);
    }
}
