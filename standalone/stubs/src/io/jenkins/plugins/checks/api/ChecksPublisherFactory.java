package io.jenkins.plugins.checks.api;

// Compile-only signature stub of io.jenkins.plugins.checks.api.ChecksPublisherFactory: jenkinsci/checks-api-plugin, tag
// 415.vf022234a_931d (bom-2.555.x 6916),
// src/main/java/io/jenkins/plugins/checks/api/ChecksPublisherFactory.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import hudson.ExtensionPoint;
import hudson.model.Run;
import hudson.model.TaskListener;

public abstract class ChecksPublisherFactory implements ExtensionPoint {
    public static ChecksPublisher fromRun(final Run<?, ?> run, final TaskListener listener) {
        throw new RuntimeException("Stub!");
    }
}
