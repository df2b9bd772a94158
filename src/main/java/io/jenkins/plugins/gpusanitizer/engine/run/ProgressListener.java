package io.jenkins.plugins.gpusanitizer.engine.run;

/** Receives the runner's short progress lines (console, Jenkins build log). Never the tool's flood. */
@FunctionalInterface
public interface ProgressListener {
    void line(String text);
}
