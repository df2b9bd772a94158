package io.jenkins.plugins.checks.api;

// Compile-only signature stub of io.jenkins.plugins:checks-api (bom-2.555.x), written from the public API (see
// ../README.md). Never packaged.
public class ChecksAnnotation {
    public enum ChecksAnnotationLevel {
        NONE,
        NOTICE,
        WARNING,
        FAILURE
    }

    public static class ChecksAnnotationBuilder {
        public ChecksAnnotationBuilder() {}

        public ChecksAnnotationBuilder withPath(String path) {
            throw new UnsupportedOperationException();
        }

        public ChecksAnnotationBuilder withStartLine(Integer startLine) {
            throw new UnsupportedOperationException();
        }

        public ChecksAnnotationBuilder withEndLine(Integer endLine) {
            throw new UnsupportedOperationException();
        }

        public ChecksAnnotationBuilder withAnnotationLevel(ChecksAnnotationLevel level) {
            throw new UnsupportedOperationException();
        }

        public ChecksAnnotationBuilder withMessage(String message) {
            throw new UnsupportedOperationException();
        }

        public ChecksAnnotationBuilder withTitle(String title) {
            throw new UnsupportedOperationException();
        }

        public ChecksAnnotation build() {
            throw new UnsupportedOperationException();
        }
    }
}
