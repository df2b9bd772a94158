package io.jenkins.plugins.checks.api;

import hudson.model.Run;
import hudson.model.TaskListener;

// Compile-only signature stub of io.jenkins.plugins:checks-api (bom-2.555.x), written from the public API (see
// ../README.md). Never packaged.
public abstract class ChecksPublisherFactory {
    public static ChecksPublisher fromRun(Run<?, ?> run, TaskListener listener) {
        throw new UnsupportedOperationException();
    }
}
