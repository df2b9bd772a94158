package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaFailure;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.TracebackParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.xml.SanitizerXmlParser;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What the three parsers promise whatever the bytes: a result or InputException (the one-line user error), never
 * anything else, never a complete run without a summary. Checked by {@link ParserFuzzTest} under Jazzer and by {@link
 * ParserSeedsTest} over the kept inputs in every test run.
 */
final class ParserInvariants {
    private ParserInvariants() {}

    static void text(byte[] data) throws IOException {
        long[] n = {0};
        try {
            SanitizerOutput out = new SanitizerTextParser()
                    .parse(new ByteArrayInputStream(data), Path.of("fuzz.log"), null, (SanitizerRecord r) -> n[0]++);
            if (out.complete() && out.errorsTotal() == null) {
                throw new AssertionError("complete without a summary");
            }
            if (out.recordsParsed() != n[0]) {
                throw new AssertionError("records counted " + out.recordsParsed() + " but " + n[0] + " delivered");
            }
        } catch (InputException expected) {
            // unusable input: the one-line error path
        }
    }

    static void xml(byte[] data) {
        try {
            SanitizerOutput out =
                    new SanitizerXmlParser().parse(new ByteArrayInputStream(data), Path.of("fuzz.xml"), null, r -> {});
            if (out.errorsTotal() != null) {
                throw new AssertionError("an XML never carries the summary");
            }
        } catch (InputException expected) {
            // unusable input
        }
    }

    static void traceback(byte[] data) throws IOException {
        CudaFailure f = new TracebackParser().parse(new ByteArrayInputStream(data), "fuzz.stderr");
        if (f.errorClass() == null || f.frames().size() > 200 || f.assertions().size() > 20) {
            throw new AssertionError("unbounded or missing result: " + f);
        }
    }
}
