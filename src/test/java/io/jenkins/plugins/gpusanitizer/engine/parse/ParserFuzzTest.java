package io.jenkins.plugins.gpusanitizer.engine.parse;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;

/**
 * Jazzer fuzz tests of the three parsers ({@link ParserInvariants}). With JAZZER_FUZZ=1 they fuzz, starting from the
 * kept inputs in ParserFuzzTestInputs/ (bench/fuzz.sh; CI's short round; docs/reliability.md for the commands and
 * results). The test command leaves this class out (standalone/pom.xml): Jazzer's {@code @FuzzTest} holds JUnit's
 * global lock, so its replay ran with nothing beside it, and its agent hooks every class loaded after it (issue #46);
 * {@link ParserSeedsTest} replays the same inputs with the same invariants, beside the other classes.
 */
class ParserFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void text(byte[] data) throws IOException {
        ParserInvariants.text(data);
    }

    @FuzzTest(maxDuration = "30s")
    void xml(byte[] data) {
        ParserInvariants.xml(data);
    }

    @FuzzTest(maxDuration = "30s")
    void traceback(byte[] data) throws IOException {
        ParserInvariants.traceback(data);
    }
}
