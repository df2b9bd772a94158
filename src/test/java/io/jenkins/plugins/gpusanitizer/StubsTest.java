package io.jenkins.plugins.gpusanitizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The API signature stubs the standalone build compiles the Jenkins layer against (issue #12, 9): each
 * names the class it mirrors and the repository tag or commit it was read from.
 */
class StubsTest {
    static final Path STUBS = Path.of(System.getProperty("gs.projectRoot", "."), "standalone/stubs/src");
    static final Pattern HEADER = Pattern.compile(
            "// Compile-only signature stub of ([\\w.]+): [\\w./-]+, (tag [\\w.-]+|commit [0-9a-f]{7,}|[\\w.-]+ \\d)");

    @Test
    void everyStubNamesItsSourceAndTag() throws IOException {
        List<Path> stubs;
        try (Stream<Path> s = Files.walk(STUBS)) {
            stubs = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        assertThat(stubs).hasSizeGreaterThan(50);
        for (Path p : stubs) {
            String rel = STUBS.relativize(p).toString().replace('\\', '/');
            if (rel.equals("io/jenkins/plugins/gpusanitizer/steps/Messages.java")) {
                continue; // stands in for the class localizer generates: MessagesStubTest
            }
            // the header comment as one line (the formatter wraps it)
            String header = Files.readAllLines(p, StandardCharsets.UTF_8).stream()
                    .filter(l -> l.startsWith("//"))
                    .map(l -> l.substring(2).trim())
                    .reduce("//", (a, b) -> a + " " + b);
            var m = HEADER.matcher(header);
            assertThat(m.find()).as(rel + ": no source line").isTrue();
            assertThat(m.group(1).replace('.', '/') + ".java").as(rel).isEqualTo(rel);
        }
    }

    /**
     * Issue #41: a stub body throws {@code new RuntimeException("Stub!")}, which SpotBugs reads as a stub. Any other
     * body that always throws (UnsupportedOperationException included) makes SpotBugs take the code after each call
     * into it as unreachable, and the standalone SpotBugs execution missed a finding the real build's reported.
     */
    @Test
    void everyStubBodyThatOnlyThrowsThrowsTheStubIdiomSpotBugsKnows() throws IOException {
        // a method body that is one throw statement: what precedes its brace is no if (a real body may throw on some
        // path, as StepDescriptor.checkContextAvailability does)
        Pattern thrown = Pattern.compile("([^;{}]*)\\{\\s*(throw\\s+[^;]*;)\\s*}");
        List<String> bodies;
        try (Stream<Path> s = Files.walk(STUBS)) {
            bodies = s.filter(p -> p.toString().endsWith(".java"))
                    .sorted()
                    .flatMap(p -> {
                        try {
                            return thrown.matcher(Files.readString(p))
                                    .results()
                                    .filter(r -> !r.group(1).matches("(?s).*\\bif\\s*\\(.*"))
                                    .map(r -> STUBS.relativize(p) + ": " + r.group(2));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .toList();
        }
        assertThat(bodies).hasSizeGreaterThan(100);
        assertThat(bodies.stream().filter(t -> !t.endsWith(": throw new RuntimeException(\"Stub!\");")))
                .isEmpty();
    }
}
