package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputFiles;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Streams compute-sanitizer's text output (stdout or {@code --log-file}) record by record, in
 * bounded memory: each finished record goes to the sink at once and is not kept. Lines without the
 * prefix are the application's own output and are skipped.
 *
 * <p>A file may hold several tool runs one after the other (an initcheck run, then a memcheck run,
 * appended to one log): each banner after a run started, and anything but the "were not printed"
 * line after a run's summary, starts a new run, with its own tool, records and summary
 * ({@link #parseRuns}). Nothing of one run is carried into the next.
 *
 * <p>A second thread reads the log ahead and reads its lines into forms ({@link ChunkReader},
 * {@link SanitizerLines}); the state machine that makes runs and records of them is
 * {@link TextLogState}.
 */
public final class SanitizerTextParser {
    public static final String DEFAULT_PREFIX = "=========";

    private final String prefix;

    public SanitizerTextParser() {
        this(DEFAULT_PREFIX);
    }

    public SanitizerTextParser(String prefix) {
        this.prefix = prefix;
    }

    /**
     * Parses a file.
     *
     * @param hint the tool that ran when the caller knows it (the runner does), else null
     * @throws InputException when the file is missing, unreadable, empty or not sanitizer output
     */
    public SanitizerOutput parse(Path file, Tool hint, Consumer<SanitizerRecord> sink) {
        return InputFiles.read(file, in -> parse(in, file, hint, sink));
    }

    /**
     * Parses a file that may hold several tool runs; the records of the i-th run returned go to
     * {@code sinks.apply(i)}.
     *
     * @throws InputException when the file is missing, unreadable, empty or not sanitizer output
     */
    public List<SanitizerOutput> parseRuns(Path file, Tool hint, IntFunction<Consumer<SanitizerRecord>> sinks) {
        return InputFiles.read(file, in -> parseRuns(in, file, hint, sinks));
    }

    /** All runs of the stream as one output (records of every run go to {@code sink}); see {@link #parseRuns}. */
    public SanitizerOutput parse(InputStream in, Path name, Tool hint, Consumer<SanitizerRecord> sink)
            throws IOException {
        return TextRun.combine(parseRuns(in, name, hint, i -> sink));
    }

    public List<SanitizerOutput> parseRuns(
            InputStream in, Path name, Tool hint, IntFunction<Consumer<SanitizerRecord>> sinks) throws IOException {
        UnfinishedLine unfinished = new UnfinishedLine(InputFiles.utf8(in), prefix, BoundedLineReader.DEFAULT_MAX_LINE);
        TextLogState st = new TextLogState(prefix, name, hint, sinks);
        LineChunker lines = read(unfinished, st);
        st.endOfLog();
        long count = ended(lines, st);
        if (unfinished.leftOut() != null) {
            st.fileProblem("line " + (count + 1) + ", the last, has no line end (the tool stopped while writing it):"
                    + " left out, cut anywhere it could name a wrong line or address: "
                    + abbreviate(unfinished.leftOut().strip()));
            count++;
        }
        return st.finish(count);
    }

    /**
     * Every line as read, the last one too when the tool did not finish it, and a record the end cut off as any
     * other: what the equivalence test compares with the line-by-line parser.
     */
    List<SanitizerOutput> parseEveryLine(
            InputStream in, Path name, Tool hint, IntFunction<Consumer<SanitizerRecord>> sinks) throws IOException {
        TextLogState st = new TextLogState(prefix, name, hint, sinks);
        LineChunker lines = read(InputFiles.utf8(in), st);
        st.flush();
        return st.finish(ended(lines, st));
    }

    /** Feeds the lines of UTF8 to ST, the record open at the end left open. */
    private LineChunker read(InputStream utf8, TextLogState st) throws IOException {
        LineChunker lines = new LineChunker(utf8, BoundedLineReader.DEFAULT_MAX_LINE);
        try (ChunkReader chunks = new ChunkReader(lines, new SanitizerLines(prefix))) {
            LineChunk c;
            while ((c = chunks.next()) != null) {
                st.lines(c);
                st.deliver();
            }
        }
        return lines;
    }

    /** The over-long lines said; returns how many lines there were. */
    private static long ended(LineChunker lines, TextLogState st) {
        if (lines.truncatedLines() > 0) {
            st.fileProblem(lines.truncatedLines() + " over-long line(s) were cut at "
                    + BoundedLineReader.DEFAULT_MAX_LINE + " characters");
        }
        return lines.lineNumber();
    }

    public static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }
}
