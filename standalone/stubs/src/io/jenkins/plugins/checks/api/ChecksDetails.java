package io.jenkins.plugins.checks.api;

// Compile-only signature stub of io.jenkins.plugins.checks.api.ChecksDetails: jenkinsci/checks-api-plugin, tag
// 415.vf022234a_931d (bom-2.555.x 6916),
// src/main/java/io/jenkins/plugins/checks/api/ChecksDetails.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public class ChecksDetails {
    // the real constructors are private (built by the builder only)
    private ChecksDetails() {}

    public static class ChecksDetailsBuilder {
        public ChecksDetailsBuilder withName(final String name) {
            throw new RuntimeException("Stub!");
        }

        public ChecksDetailsBuilder withStatus(final ChecksStatus status) {
            throw new RuntimeException("Stub!");
        }

        public ChecksDetailsBuilder withDetailsURL(final String detailsURL) {
            throw new RuntimeException("Stub!");
        }

        public ChecksDetailsBuilder withConclusion(final ChecksConclusion conclusion) {
            throw new RuntimeException("Stub!");
        }

        public ChecksDetailsBuilder withOutput(final ChecksOutput output) {
            throw new RuntimeException("Stub!");
        }

        public ChecksDetails build() {
            throw new RuntimeException("Stub!");
        }
    }
}
