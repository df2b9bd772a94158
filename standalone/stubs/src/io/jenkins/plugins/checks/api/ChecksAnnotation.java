package io.jenkins.plugins.checks.api;

// Compile-only signature stub of io.jenkins.plugins.checks.api.ChecksAnnotation: jenkinsci/checks-api-plugin, tag
// 415.vf022234a_931d (bom-2.555.x 6916),
// src/main/java/io/jenkins/plugins/checks/api/ChecksAnnotation.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public class ChecksAnnotation {
    // the real constructors are private (built by the builder only), but for a copy constructor
    private ChecksAnnotation() {}

    public enum ChecksAnnotationLevel {
        NONE,
        NOTICE,
        WARNING,
        FAILURE
    }

    public static class ChecksAnnotationBuilder {
        public ChecksAnnotationBuilder withPath(final String path) {
            throw new RuntimeException("Stub!");
        }

        public ChecksAnnotationBuilder withStartLine(final Integer startLine) {
            throw new RuntimeException("Stub!");
        }

        public ChecksAnnotationBuilder withEndLine(final Integer endLine) {
            throw new RuntimeException("Stub!");
        }

        public ChecksAnnotationBuilder withAnnotationLevel(final ChecksAnnotationLevel level) {
            throw new RuntimeException("Stub!");
        }

        public ChecksAnnotationBuilder withMessage(final String message) {
            throw new RuntimeException("Stub!");
        }

        public ChecksAnnotationBuilder withTitle(final String title) {
            throw new RuntimeException("Stub!");
        }

        public ChecksAnnotation build() {
            throw new RuntimeException("Stub!");
        }
    }
}
