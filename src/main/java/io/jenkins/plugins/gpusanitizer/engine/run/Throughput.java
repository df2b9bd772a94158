package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import io.jenkins.plugins.gpusanitizer.engine.report.ThroughputJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads throughput from the job's output with the user's regex (first group, or the whole match,
 * as a number) and compares the steady state with a baseline: the median of the last half of the
 * values, so warm-up does not count.
 */
final class Throughput {
    private static final int KEEP = 2000;

    private Throughput() {}

    static ThroughputJson read(String regex, Double baseline, double tolerance, List<Path> files) {
        Pattern p = Pattern.compile(regex);
        Deque<Double> last = new ArrayDeque<>();
        int n = 0;
        for (Path f : files) {
            if (!Files.isRegularFile(f)) {
                continue;
            }
            try (BoundedLineReader r = new BoundedLineReader(Files.newBufferedReader(f, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Matcher m = p.matcher(line);
                    while (m.find()) {
                        // null: the regex's first group took no part in this match (an optional group)
                        String number = m.groupCount() >= 1 ? m.group(1) : m.group();
                        if (number == null) {
                            continue;
                        }
                        try {
                            last.addLast(Double.parseDouble(number));
                            n++;
                            if (last.size() > KEEP) {
                                last.removeFirst();
                            }
                        } catch (NumberFormatException e) {
                            // not a number: skip
                        }
                    }
                }
            } catch (IOException | java.io.UncheckedIOException e) {
                // unreadable output: nothing measured
            }
        }
        if (last.isEmpty()) {
            return new ThroughputJson(regex, baseline, null, null, 0, tolerance);
        }
        List<Double> values = new ArrayList<>(last);
        List<Double> steady = new ArrayList<>(values.subList(values.size() / 2, values.size()));
        steady.sort(null);
        double median = steady.get(steady.size() / 2);
        Double ratio = baseline == null || baseline == 0 ? null : median / baseline;
        return new ThroughputJson(regex, baseline, median, ratio, n, tolerance);
    }
}
