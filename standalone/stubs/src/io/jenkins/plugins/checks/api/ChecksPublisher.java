package io.jenkins.plugins.checks.api;

// Compile-only signature stub of io.jenkins.plugins:checks-api (bom-2.555.x), written from the public API (see
// ../README.md). Never packaged.
public abstract class ChecksPublisher {
    public abstract void publish(ChecksDetails details);
}
