package io.jenkins.plugins.checks.api;

// Compile-only signature stub of io.jenkins.plugins.checks.api.ChecksOutput: jenkinsci/checks-api-plugin, tag
// 415.vf022234a_931d (bom-2.555.x 6916),
// src/main/java/io/jenkins/plugins/checks/api/ChecksOutput.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import java.util.List;

public class ChecksOutput {
    // the real constructors are private (built by the builder only), but for a copy constructor
    private ChecksOutput() {}

    public static class ChecksOutputBuilder {
        public ChecksOutputBuilder withTitle(final String title) {
            throw new RuntimeException("Stub!");
        }

        public ChecksOutputBuilder withSummary(final String summary) {
            throw new RuntimeException("Stub!");
        }

        public ChecksOutputBuilder withText(final String text) {
            throw new RuntimeException("Stub!");
        }

        public ChecksOutputBuilder withAnnotations(final List<ChecksAnnotation> annotations) {
            throw new RuntimeException("Stub!");
        }

        public ChecksOutput build() {
            throw new RuntimeException("Stub!");
        }
    }
}
