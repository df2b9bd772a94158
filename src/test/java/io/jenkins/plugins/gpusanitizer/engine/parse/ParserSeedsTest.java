package io.jenkins.plugins.gpusanitizer.engine.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fuzz targets' inputs kept in ParserFuzzTestInputs/ (the seeds, real corpus files, and any input a fuzzing round
 * found) through the same invariants ({@link ParserInvariants}), in every test run. {@link ParserFuzzTest} fuzzes from
 * them under Jazzer when asked (bench/fuzz.sh); this class is their replay without Jazzer's agent, beside the other
 * classes.
 */
class ParserSeedsTest {
    static final List<String> TARGETS = List.of("text", "xml", "traceback");

    static Path inputs() {
        try {
            return Path.of(
                    ParserSeedsTest.class.getResource("ParserFuzzTestInputs").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Arguments> kept() throws IOException {
        Stream.Builder<Arguments> all = Stream.builder();
        for (String target : TARGETS) {
            try (Stream<Path> files = Files.list(inputs().resolve(target))) {
                for (Path f : files.sorted().toList()) {
                    all.add(Arguments.of(target, f.getFileName().toString()));
                }
            }
        }
        return all.build();
    }

    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("kept")
    void everyKeptInputKeepsTheParsersPromise(String target, String name) throws IOException {
        byte[] data = Files.readAllBytes(inputs().resolve(target).resolve(name));
        switch (target) {
            case "text" -> ParserInvariants.text(data);
            case "xml" -> ParserInvariants.xml(data);
            case "traceback" -> ParserInvariants.traceback(data);
            default -> throw new AssertionError("no fuzz target " + target);
        }
    }

    /** Each of ParserFuzzTest's targets has inputs here, and nothing else does: a renamed target is caught. */
    @Test
    void eachFuzzTargetHasItsInputs() throws IOException {
        try (Stream<Path> folders = Files.list(inputs())) {
            assertThat(folders.map(p -> p.getFileName().toString())).containsExactlyInAnyOrderElementsOf(TARGETS);
        }
        for (String target : TARGETS) {
            try (Stream<Path> files = Files.list(inputs().resolve(target))) {
                assertThat(files.count()).as(target).isPositive();
            }
            assertThat(ParserFuzzTest.class.getDeclaredMethods())
                    .as("ParserFuzzTest#" + target)
                    .anyMatch(m -> m.getName().equals(target));
        }
    }
}
