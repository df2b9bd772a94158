package io.jenkins.plugins.checks.api;

// Compile-only signature stub of io.jenkins.plugins:checks-api (bom-2.555.x), written from the public API (see
// ../README.md). Never packaged.
public class ChecksDetails {
    public static class ChecksDetailsBuilder {
        public ChecksDetailsBuilder() {}

        public ChecksDetailsBuilder withName(String name) {
            throw new UnsupportedOperationException();
        }

        public ChecksDetailsBuilder withStatus(ChecksStatus status) {
            throw new UnsupportedOperationException();
        }

        public ChecksDetailsBuilder withDetailsURL(String detailsURL) {
            throw new UnsupportedOperationException();
        }

        public ChecksDetailsBuilder withConclusion(ChecksConclusion conclusion) {
            throw new UnsupportedOperationException();
        }

        public ChecksDetailsBuilder withOutput(ChecksOutput output) {
            throw new UnsupportedOperationException();
        }

        public ChecksDetails build() {
            throw new UnsupportedOperationException();
        }
    }
}
