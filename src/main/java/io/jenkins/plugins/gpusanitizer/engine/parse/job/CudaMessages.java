package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CUDA error messages one stream printed outside any traceback (a job that caught the error and
 * printed it, a C++ abort, NCCL's watchdog), deduplicated by text: a watchdog repeats its line for
 * every collective, so each text is kept once with its first line and a count.
 */
final class CudaMessages {
    private static final Pattern CPP_WHAT = Pattern.compile("^\\s*what\\(\\):\\s+(.*)$");
    /** c10/glog's line header ({@code [W1203 08:15:20.816119564 CUDAEvent.h:57] }): its timestamp would defeat deduplication. */
    private static final Pattern LOG_HEADER =
            Pattern.compile("^\\[?[IWEF]\\d{3,4} \\d{2}:\\d{2}:\\d{2}\\.\\d+ [^\\]]*\\]\\s*");

    private final String stream;
    private final Map<String, long[]> counts = new LinkedHashMap<>();
    private final List<CudaFailure.CudaMessage> first = new ArrayList<>();

    CudaMessages(String stream) {
        this.stream = stream;
    }

    /** The message a line carries: a C++ exception's {@code what():} text, without c10's log header. */
    static String text(String line) {
        Matcher w = CPP_WHAT.matcher(line);
        return LOG_HEADER.matcher(w.matches() ? w.group(1) : line.trim()).replaceFirst("");
    }

    /** PyTorch's advice lines under a CUDA error: not errors themselves. */
    static boolean isHint(String text) {
        return text.startsWith("Search for `cuda")
                || text.startsWith("terminate called after throwing")
                || text.startsWith("Exception raised from")
                || text.startsWith("CUDA kernel errors might be")
                || text.startsWith("For debugging consider passing")
                || text.startsWith("Compile with `TORCH_USE_CUDA_DSA`");
    }

    void add(long line, Integer rank, String text, CudaErrorClass c) {
        String t = text.length() > 500 ? text.substring(0, 500) : text;
        long[] n = counts.get(t);
        if (n != null) {
            n[0]++;
        } else if (counts.size() < TracebackParser.MAX_MESSAGES) {
            counts.put(t, new long[] {1});
            first.add(new CudaFailure.CudaMessage(stream, line, rank, t, c, 1));
        }
    }

    List<CudaFailure.CudaMessage> list() {
        return first.stream()
                .map(m -> new CudaFailure.CudaMessage(
                        m.stream(), m.line(), m.rank(), m.text(), m.errorClass(), counts.get(m.text())[0]))
                .toList();
    }
}
