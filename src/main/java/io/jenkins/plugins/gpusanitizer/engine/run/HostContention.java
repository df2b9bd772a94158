package io.jenkins.plugins.gpusanitizer.engine.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A host resource two runs beside each other contend for (issue #47, situation 7): a run whose stderr says a port was
 * already in use (torch's c10d store on a fixed MASTER_PORT, a TensorBoard or metrics server) failed for the gate's
 * overlap, not the job's; it runs again alone, as a run out of GPU memory beside another does.
 *
 * <p>A run that failed beside another without a word on stderr and before any of its processes loaded the probe
 * (nothing of the job's Python started) is run again alone too (situation 8: {@code exec flock -n /tmp/train.lock
 * python train.py}, a one-training-per-machine guard, exits 1 silently while the other run holds the lock). The words
 * say only what was seen; alone, the run is judged as any other, so a job that fails that way by itself still fails.
 */
final class HostContention {
    private static final Pattern IN_USE = Pattern.compile("(?i)address already in use|EADDRINUSE|errno 98");
    /** "port 12355", or ":12355" after an address ("[::]:12355", "1.2.3.4:12355"), never a line ("socket.cpp:464"). */
    private static final Pattern PORT =
            Pattern.compile("(?i)\\bport[ =:]*(\\d{2,5})|(?:\\]|\\d|localhost):(\\d{2,5})\\b");

    private HostContention() {}

    /** What the failed run's stderr shows it could not take beside another run, or null when it shows none. */
    static String why(Path stderr) {
        try (var lines = Files.lines(stderr, StandardCharsets.ISO_8859_1)) {
            return lines.filter(line -> IN_USE.matcher(line).find())
                    .findFirst()
                    .map(HostContention::portPhrase)
                    .orElse(null);
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    /**
     * "it failed before its job started (exit 1, nothing on stderr, no process loaded the probe)", or null when the
     * run printed anything on stderr or its probe wrote a line.
     */
    static String silentBeforeTheJob(Path stderr, Path probe, Integer exitCode) {
        try {
            boolean quiet = !Files.exists(stderr)
                    || Files.readString(stderr, StandardCharsets.ISO_8859_1).isBlank();
            boolean noProbe = !Files.exists(probe) || Files.size(probe) == 0;
            return quiet && noProbe
                    ? "it failed before its job started (exit " + (exitCode == null ? "unknown" : exitCode)
                            + ", nothing on stderr, no process of it loaded the probe)"
                    : null;
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    private static String portPhrase(String line) {
        Matcher port = PORT.matcher(line);
        String number = port.find() ? (port.group(1) != null ? port.group(1) : port.group(2)) : null;
        return number == null
                ? "it could not take a port (Address already in use)"
                : "it could not take port " + number + " (Address already in use)";
    }
}
