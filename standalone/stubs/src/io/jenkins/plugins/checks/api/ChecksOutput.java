package io.jenkins.plugins.checks.api;

import java.util.List;

// Compile-only signature stub of io.jenkins.plugins:checks-api (bom-2.555.x), written from the public API (see
// ../README.md). Never packaged.
public class ChecksOutput {
    public static class ChecksOutputBuilder {
        public ChecksOutputBuilder() {}

        public ChecksOutputBuilder withTitle(String title) {
            throw new UnsupportedOperationException();
        }

        public ChecksOutputBuilder withSummary(String summary) {
            throw new UnsupportedOperationException();
        }

        public ChecksOutputBuilder withText(String text) {
            throw new UnsupportedOperationException();
        }

        public ChecksOutputBuilder withAnnotations(List<ChecksAnnotation> annotations) {
            throw new UnsupportedOperationException();
        }

        public ChecksOutput build() {
            throw new UnsupportedOperationException();
        }
    }
}
