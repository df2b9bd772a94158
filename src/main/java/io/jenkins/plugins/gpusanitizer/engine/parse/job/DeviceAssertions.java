package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The device-side assertion lines the GPU printed
 * ({@code /w/k.cu:12: fn: block: [0,0,0], thread: [3,0,0] Assertion `i < n` failed.}), grouped by
 * where and what failed: one line per failing thread, so thousands of lines make a few assertions.
 * Shared by every rank and the launcher.
 */
final class DeviceAssertions {
    private static final int MAX_ASSERTIONS = 20;
    private static final Pattern ASSERTION = Pattern.compile(
            "^(\\S+):(\\d+): (.+?): block: \\[(\\d+),(\\d+),(\\d+)\\], thread: \\[(\\d+),(\\d+),(\\d+)\\] Assertion `(.*)` failed\\.?$");

    private final Map<String, long[]> counts = new LinkedHashMap<>();
    private final Map<String, CudaFailure.DeviceAssertion> first = new LinkedHashMap<>();
    private long lines;

    /** Is the line a whole device assert line (one the GPU printed into a traceback, say)? */
    static boolean isAssertion(String line) {
        return line.contains("Assertion `") && ASSERTION.matcher(line.trim()).matches();
    }

    void line(String line) {
        if (!line.contains("Assertion `") || !line.contains("failed")) {
            return;
        }
        Matcher a = ASSERTION.matcher(line.trim());
        if (!a.matches()) {
            return;
        }
        lines++;
        // whitespace left out of the key: pieces of a line mixed with a traceback may gain or lose a space
        String key = a.group(1) + ":" + a.group(2) + ":" + a.group(3) + ":"
                + a.group(10).replaceAll("\\s+", "");
        long[] n = counts.get(key);
        if (n != null) {
            n[0]++;
        } else if (counts.size() < MAX_ASSERTIONS) {
            counts.put(key, new long[] {1});
            first.put(
                    key,
                    new CudaFailure.DeviceAssertion(
                            a.group(1),
                            FrameParser.parseInt(a.group(2)),
                            a.group(3),
                            a.group(10),
                            0,
                            "[" + a.group(4) + "," + a.group(5) + "," + a.group(6) + "]",
                            "[" + a.group(7) + "," + a.group(8) + "," + a.group(9) + "]"));
        }
    }

    /** Every assert line read, counted before grouping. */
    long lines() {
        return lines;
    }

    List<CudaFailure.DeviceAssertion> list() {
        List<CudaFailure.DeviceAssertion> out = new ArrayList<>();
        first.forEach((k, a) -> out.add(new CudaFailure.DeviceAssertion(
                a.file(), a.line(), a.function(), a.condition(), counts.get(k)[0], a.firstBlock(), a.firstThread())));
        return out;
    }
}
