package io.jenkins.plugins.gpusanitizer.engine.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every parser of engine/parse honours, after analysis-model's {@code AbstractParserTest}:
 * a concrete test names one output recorded on the H200 and asserts softly over the records it yields
 * ({@link #assertThatRecordsArePresent}); the contract cases below run against that same file.
 *
 * <p>The contract (docs/reliability.md): unusable input is the one-line {@link InputException}
 * naming the file, never another exception; input that is usable but cut off or damaged gives the
 * records it holds and says it is partial: it never reads as a finished run, and never states a total
 * it did not read (a cut log must not read as "0 errors").
 *
 * @param <T> what the parser returns for one file
 */
public abstract class AbstractParserTest<T> {
    /** A line far beyond every parser's line bound (BoundedLineReader.DEFAULT_MAX_LINE is 64 KiB). */
    private static final int HUGE_LINE = 10 * 1024 * 1024;
    /** The end of the recorded file cut at every byte: the last record's tail and the summary or closing tag. */
    private static final int TAIL_CUTS = 400;

    @TempDir
    Path dir;

    private final Path recorded;

    /** @param recorded the real H200 output this test's records come from */
    protected AbstractParserTest(Path recorded) {
        this.recorded = recorded;
    }

    /** Parses a file; throws {@link InputException} when it is unusable. */
    protected abstract T parse(Path file);

    /** The records the result holds. */
    protected abstract long recordCount(T result);

    /** Whether the result says the output ended the way a finished run ends (a summary, a closing tag). */
    protected abstract boolean readsAsFinished(T result);

    /** The error total the output states, or null when it states none (then the total is unknown). */
    protected abstract Long statedTotal(T result);

    /** The parse problems the result reports (truncation, damage). */
    protected abstract List<String> problems(T result);

    /** Where a record begins in this parser's format (matched against the file read as ISO-8859-1). */
    protected abstract Pattern recordStart();

    /** The problem of an empty file, as the one-line error states it after the file name. */
    protected abstract String emptyFileProblem();

    /** Another tool's output of the same shape (a valgrind log, a JUnit XML) that this parser must refuse. */
    protected abstract String foreignOutput();

    /** What the one-line error says about {@link #foreignOutput()}. */
    protected abstract String foreignProblem();

    /** Whether a log saved as UTF-16 (PowerShell's {@code >}) must read as its UTF-8 original. */
    protected boolean readsUtf16() {
        return true;
    }

    /** The records of the recorded file: kinds, kernels, locations, frames. */
    protected abstract void assertThatRecordsArePresent(T result, SoftAssertions softly);

    /**
     * Whether a file cut after {@code prefix} ends in a complete line that a whole output may end in
     * too, so the parser cannot know it was cut (default: never). Such a cut must still be flagged.
     */
    protected boolean cutLooksWhole(String prefix) {
        return false;
    }

    /** More that a parser promises about a file cut off after {@code prefix} (default: nothing). */
    protected void assertCut(String prefix, T result, SoftAssertions softly) {}

    protected final Path recorded() {
        return recorded;
    }

    @Test
    final void recordedFileYieldsItsRecords() {
        T result = parse(recorded);
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(recordCount(result))
                    .as("one record per record start in " + recorded.getFileName())
                    .isEqualTo(starts(latin1(read(recorded))).size());
            softly.assertThat(readsAsFinished(result))
                    .as("the recorded run finished")
                    .isTrue();
            assertThatRecordsArePresent(result, softly);
        });
    }

    @Test
    final void emptyFileIsAOneLineErrorNamingTheFile() {
        Path empty = write("empty", new byte[0]);
        assertOneLineError(catchThrowable(() -> parse(empty)), empty, emptyFileProblem());
    }

    @Test
    final void missingFileIsAOneLineErrorNamingTheFile() {
        Path missing = dir.resolve("missing");
        assertOneLineError(catchThrowable(() -> parse(missing)), missing, "no such file");
    }

    @Test
    final void directoryIsAOneLineErrorNamingTheFile() throws IOException {
        Path sub = Files.createDirectory(dir.resolve("a-directory"));
        assertOneLineError(catchThrowable(() -> parse(sub)), sub, null);
    }

    @Test
    final void anotherToolsOutputIsAOneLineError() {
        Path foreign = write("foreign", foreignOutput().getBytes(StandardCharsets.UTF_8));
        Throwable thrown = catchThrowable(() -> parse(foreign));
        assertOneLineError(thrown, foreign, null);
        assertThat(thrown).hasMessageContaining(foreignProblem());
    }

    @Test
    final void cutAtEveryRecordBoundaryKeepsTheRecordsBeforeIt() {
        byte[] full = read(recorded);
        List<Integer> starts = starts(latin1(full));
        assertThat(starts).as("record starts in " + recorded.getFileName()).hasSizeGreaterThan(2);
        SoftAssertions softly = new SoftAssertions();
        for (int i = 0; i < starts.size(); i++) {
            int cut = starts.get(i);
            T result = parseCut(full, cut, softly);
            if (result == null) {
                continue;
            }
            softly.assertThat(recordCount(result))
                    .as("cut before record %d: the records before it", i)
                    .isEqualTo((long) i);
            assertPartial(full, cut, result, softly);
        }
        softly.assertAll();
    }

    @Test
    final void cutAtEveryByteOfARecordKeepsTheRecordsBeforeIt() {
        byte[] full = read(recorded);
        String text = latin1(full);
        List<Integer> starts = starts(text);
        SoftAssertions softly = new SoftAssertions();
        // every byte of the second record: mid-tag, mid-text, between lines or tags
        for (int cut = starts.get(1) + 1; cut < starts.get(2); cut++) {
            T result = parseCut(full, cut, softly);
            if (result == null) {
                continue;
            }
            softly.assertThat(recordCount(result))
                    .as(
                            "cut at byte %d inside record 1: record 0, and record 1 only if the parser keeps a partial one",
                            cut)
                    .isBetween(1L, 2L);
            assertPartial(full, cut, result, softly);
        }
        softly.assertAll();
    }

    /**
     * The end cuts run on a short stand-in for the recorded file: its head up to the third record, then
     * its last record and what follows it (the summary or closing tag), so the end is byte for byte the
     * recorded end; the records in between change nothing a cut of the end shows, and 400 parses of the
     * whole file cost minutes of CPU in the full build (issue #27). The stand-in must read as the
     * recorded file does: finished, with its total and no problem.
     */
    @Test
    final void cutAtEveryByteOfTheEndNeverStatesAnotherTotal() {
        byte[] sample = endSample(read(recorded));
        T whole = parse(write("end-sample", sample));
        T recordedWhole = parse(recorded);
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(readsAsFinished(whole))
                    .as("the end sample reads as finished")
                    .isEqualTo(readsAsFinished(recordedWhole))
                    .isTrue();
            softly.assertThat(statedTotal(whole)).as("the end sample's total").isEqualTo(statedTotal(recordedWhole));
            softly.assertThat(problems(whole)).as("the end sample's problems").isEqualTo(problems(recordedWhole));
        });
        assertEndCuts(sample, whole);
    }

    private void assertEndCuts(byte[] full, T whole) {
        String text = latin1(full);
        int last = starts(text).size();
        SoftAssertions softly = new SoftAssertions();
        for (int cut = Math.max(0, full.length - TAIL_CUTS); cut < full.length; cut++) {
            T result = parseCut(full, cut, softly);
            if (result == null) {
                continue;
            }
            softly.assertThat(recordCount(result))
                    .as("cut at byte %d of the end", cut)
                    .isBetween(last - 1L, (long) last);
            String prefix = text.substring(0, cut);
            if (cutLooksWhole(prefix)) {
                softly.assertThat(Objects.equals(statedTotal(result), statedTotal(whole))
                                || !problems(result).isEmpty())
                        .as(
                                "cut at byte %d leaves a whole line the parser cannot tell from a real one: "
                                        + "the run's total or a problem",
                                cut)
                        .isTrue();
                continue;
            }
            Long total = statedTotal(result);
            softly.assertThat(total == null || total.equals(statedTotal(whole)))
                    .as(
                            "cut at byte %d of the end states total %s, the run's total is %s",
                            cut, total, statedTotal(whole))
                    .isTrue();
            if (!readsAsFinished(result)) {
                softly.assertThat(problems(result))
                        .as("cut at byte %d without a problem", cut)
                        .isNotEmpty();
            } else {
                softly.assertThat(total)
                        .as("cut at byte %d reads as finished: then with the run's own total", cut)
                        .isEqualTo(statedTotal(whole));
                softly.assertThat(recordCount(result))
                        .as("cut at byte %d reads as finished: then with every record", cut)
                        .isEqualTo((long) last);
            }
            assertCut(prefix, result, softly);
        }
        softly.assertAll();
    }

    @Test
    final void binaryGarbageIsAnErrorOrAnUnfinishedResult() {
        Random random = new Random(16);
        byte[] garbage = new byte[64 * 1024];
        random.nextBytes(garbage);
        byte[] full = read(recorded);
        int second = starts(latin1(full)).get(1);
        SoftAssertions softly = new SoftAssertions();
        assertUnusableOrUnfinished("random bytes", garbage, softly);
        assertUnusableOrUnfinished("an ELF header", "\0\0\u0001ELF\0\0".getBytes(StandardCharsets.ISO_8859_1), softly);
        assertUnusableOrUnfinished(
                "the first record, then random bytes", concat(slice(full, 0, second), garbage), softly);
        softly.assertAll();
    }

    @Test
    final void hugeLineBeforeTheRecordsLosesNothing() {
        byte[] full = read(recorded);
        int first = starts(latin1(full)).get(0);
        byte[] line = new byte[HUGE_LINE + 1];
        java.util.Arrays.fill(line, (byte) 'A');
        line[HUGE_LINE] = '\n';
        T whole = parse(recorded);
        T result = parse(write("huge-line", concat(slice(full, 0, first), line, slice(full, first, full.length))));
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(recordCount(result)).as("records").isEqualTo(recordCount(whole));
            softly.assertThat(statedTotal(result)).as("total").isEqualTo(statedTotal(whole));
            softly.assertThat(readsAsFinished(result)).as("finished").isEqualTo(readsAsFinished(whole));
        });
        byte[] oneLine = new byte[HUGE_LINE];
        java.util.Arrays.fill(oneLine, (byte) 'A');
        SoftAssertions softly = new SoftAssertions();
        assertUnusableOrUnfinished("a file that is one 10 MiB line", oneLine, softly);
        softly.assertAll();
    }

    @Test
    final void invalidUtf8AndNulBytesBetweenRecordsAreAnErrorOrAPartialResult() {
        byte[] full = read(recorded);
        int second = starts(latin1(full)).get(1);
        byte[] bad = {(byte) 0xC3, '(', (byte) 0xFF, (byte) 0x80, 0, (byte) 0xED, (byte) 0xA0, (byte) 0x80, '\n'};
        Path file = write("bad-bytes", concat(slice(full, 0, second), bad, slice(full, second, full.length)));
        T whole = parse(recorded);
        T result;
        try {
            result = parse(file);
        } catch (InputException e) {
            assertOneLineError(e, file, null);
            return;
        }
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(recordCount(result)).as("records").isBetween(1L, recordCount(whole));
            if (recordCount(result) < recordCount(whole)) {
                softly.assertThat(readsAsFinished(result))
                        .as("lost records but reads as finished")
                        .isFalse();
                softly.assertThat(problems(result))
                        .as("lost records without a problem")
                        .isNotEmpty();
            }
            softly.assertThat(statedTotal(result) == null || statedTotal(result).equals(statedTotal(whole)))
                    .as("states total %s, the run's total is %s", statedTotal(result), statedTotal(whole))
                    .isTrue();
        });
    }

    @Test
    final void utf16CopyReadsAsTheOriginalOrIsAnError() {
        String text = new String(read(recorded), StandardCharsets.UTF_8);
        int second = starts(text).get(1);
        // a lone high surrogate (invalid UTF-16) on a line of its own between the first two records;
        // the JDK's UTF-16 decoder replaces it together with the unit after it (malformed length 4),
        // so a space stands between it and the newline, which would else be swallowed and join the
        // next record's first line to it
        byte[] le = concat(
                new byte[] {(byte) 0xFF, (byte) 0xFE},
                text.substring(0, second).getBytes(StandardCharsets.UTF_16LE),
                new byte[] {0x00, (byte) 0xD8, ' ', 0, '\n', 0},
                text.substring(second).getBytes(StandardCharsets.UTF_16LE));
        Path file = write("utf16le", le);
        T whole = parse(recorded);
        if (!readsUtf16()) {
            SoftAssertions softly = new SoftAssertions();
            assertUnusableOrUnfinished("a UTF-16 copy", le, softly);
            softly.assertAll();
            return;
        }
        T result = parse(file);
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(recordCount(result)).as("records").isEqualTo(recordCount(whole));
            softly.assertThat(statedTotal(result)).as("total").isEqualTo(statedTotal(whole));
            softly.assertThat(readsAsFinished(result)).as("finished").isEqualTo(readsAsFinished(whole));
            softly.assertThat(problems(result)).as("problems").isEqualTo(problems(whole));
        });
    }

    /**
     * The recorded file without its middle records: the bytes before the third record start, then the
     * last record and the rest (the file itself when it holds three records or fewer).
     */
    private byte[] endSample(byte[] full) {
        List<Integer> starts = starts(latin1(full));
        if (starts.size() <= 3) {
            return full;
        }
        return concat(slice(full, 0, starts.get(2)), slice(full, starts.get(starts.size() - 1), full.length));
    }

    /** A cut file: a result, or (only when no record is left) the one-line error; null after an error. */
    private T parseCut(byte[] full, int cut, SoftAssertions softly) {
        Path file = write("cut", slice(full, 0, cut));
        try {
            return parse(file);
        } catch (InputException e) {
            softly.assertThat(starts(latin1(slice(full, 0, cut))))
                    .as("cut at byte %d keeps records but gives the error %s", cut, e.getMessage())
                    .isEmpty();
            return null;
        } catch (RuntimeException | StackOverflowError e) {
            softly.fail("cut at byte %d: %s", cut, e);
            return null;
        }
    }

    /** A file cut before its end: partial, said so, and no total (the summary is what the cut lost). */
    private void assertPartial(byte[] full, int cut, T result, SoftAssertions softly) {
        softly.assertThat(readsAsFinished(result))
                .as("cut at byte %d reads as finished", cut)
                .isFalse();
        softly.assertThat(statedTotal(result))
                .as("cut at byte %d states a total (the count is unknown)", cut)
                .isNull();
        softly.assertThat(problems(result))
                .as("cut at byte %d without a problem", cut)
                .isNotEmpty();
        assertCut(latin1(slice(full, 0, cut)), result, softly);
    }

    private void assertUnusableOrUnfinished(String what, byte[] content, SoftAssertions softly) {
        Path file = write("hostile", content);
        T result;
        try {
            result = parse(file);
        } catch (InputException e) {
            softly.assertThat(e.getMessage()).as(what).startsWith(file + ": ").doesNotContain("\n");
            return;
        } catch (RuntimeException | StackOverflowError e) {
            softly.fail("%s: %s", what, e);
            return;
        }
        softly.assertThat(readsAsFinished(result))
                .as("%s reads as finished", what)
                .isFalse();
        softly.assertThat(statedTotal(result)).as("%s states a total", what).isNull();
        softly.assertThat(problems(result)).as("%s without a problem", what).isNotEmpty();
    }

    private static void assertOneLineError(Throwable thrown, Path file, String problem) {
        assertThat(thrown).isInstanceOf(InputException.class);
        assertThat(thrown.getMessage()).startsWith(file + ": ").doesNotContain("\n", "\r");
        if (problem != null) {
            assertThat(thrown).hasMessage(file + ": " + problem);
        }
    }

    private List<Integer> starts(String text) {
        List<Integer> starts = new ArrayList<>();
        Matcher m = recordStart().matcher(text);
        while (m.find()) {
            starts.add(m.start());
        }
        return starts;
    }

    private Path write(String name, byte[] content) {
        try {
            return Files.write(dir.resolve(name), content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String latin1(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static byte[] slice(byte[] b, int from, int to) {
        return java.util.Arrays.copyOfRange(b, from, to);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
