package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The runner's short lines for the console or the build log: prefixed, with the job's secrets masked. */
public final class ProgressLog {
    private static final byte[] RECORD_SEPARATOR = "\n========= \n".getBytes(StandardCharsets.US_ASCII);

    private final ProgressListener listener;
    private final Secrets secrets;

    public ProgressLog(ProgressListener listener, Secrets secrets) {
        this.listener = listener;
        this.secrets = secrets;
    }

    public void say(String text) {
        listener.line(secrets.mask("[gpu-sanitize] " + text));
    }

    /** One line per finished phase: status, time, exit, the sanitizer's record count, the runner's note. */
    void finished(PhaseResult result, RunDirectory dir) {
        StringBuilder line = new StringBuilder()
                .append(result.name())
                .append(' ')
                .append(result.status())
                .append(" after ")
                .append(seconds(result.wallSeconds()))
                .append(" s");
        if (result.exitCode() != null) {
            line.append(" (exit ").append(result.exitCode());
            if (result.signal() != null) {
                line.append(", signal ").append(result.signal());
            }
            line.append(')');
        }
        if (result.phase() == Phase.SANITIZER) {
            Path log = dir.dir(result.directory()).resolve(RunLayout.SANITIZER_LOG);
            line.append(", ").append(recordsSoFar(log)).append(" error record(s)");
        }
        if (result.note() != null) {
            line.append(": ").append(result.note());
        }
        say(line.toString());
    }

    static String seconds(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    static String abbreviate(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }

    /** Error records printed so far: the separator lines of the tool's log, read cheaply from the file. */
    static long recordsSoFar(Path log) {
        if (!Files.isRegularFile(log)) {
            return 0;
        }
        long records = 0;
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            byte[] buffer = new byte[1 << 16];
            int matched = 0;
            int read;
            while ((read = file.read(buffer)) > 0) {
                for (int i = 0; i < read; i++) {
                    byte b = buffer[i];
                    if (b == RECORD_SEPARATOR[matched]) {
                        if (++matched == RECORD_SEPARATOR.length) {
                            records++;
                            matched = 1;
                        }
                    } else {
                        matched = b == RECORD_SEPARATOR[0] ? 1 : 0;
                    }
                }
            }
        } catch (IOException e) {
            return records;
        }
        return records;
    }
}
