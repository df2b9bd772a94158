package io.jenkins.plugins.gpusanitizer.engine.parse.memory;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.parse.AbstractParserTest;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import org.junit.jupiter.api.Test;

/**
 * The bad-input corpus of docs/reliability.md: every case gives a clear one-line error or a correct
 * partial result flagged as partial — never an exception of another kind, never "complete". The cases
 * that are the same for every parser (empty, missing, a directory, cut at every record boundary and
 * inside a record, binary garbage, huge lines, invalid UTF-8 and UTF-16, another tool's output) are
 * the contract of {@link AbstractParserTest}; the cases of one format are in that parser's test.
 */
class BadInputTest {
    @Test
    void anotherToolsOutputIsNotAMemoryCsv() {
        assertThatThrownBy(() -> new MemoryCsvParser().parse(Corpus.file("far-oob/memcheck.log")))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("not an nvidia-smi memory CSV");
    }
}
