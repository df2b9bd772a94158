package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PyTorch's CUDA out-of-memory message ({@code Tried to allocate 20.00 GiB. GPU 0 has a total
 * capacity of ...}): the sizes it names, so the report can say how far the job was from fitting.
 */
final class OutOfMemoryMessage {
    private static final Pattern OOM = Pattern.compile(
            "Tried to allocate ([\\d.]+ \\w+)\\. GPU ?(\\d*) has a total capac(?:i)?ty of ([\\d.]+ \\w+) of which ([\\d.]+ \\w+) is free\\..*?"
                    + "Of the allocated memory ([\\d.]+ \\w+) is allocated by PyTorch, and ([\\d.]+ \\w+) is reserved by PyTorch but unallocated");

    private OutOfMemoryMessage() {}

    /** @return the sizes the line names, or null when it is no out-of-memory message */
    static CudaFailure.OutOfMemory parse(String line) {
        if (!line.contains("Tried to allocate")) {
            return null;
        }
        Matcher m = OOM.matcher(line);
        if (!m.find()) {
            return null;
        }
        return new CudaFailure.OutOfMemory(
                bytes(m.group(1)),
                m.group(2),
                bytes(m.group(3)),
                bytes(m.group(4)),
                bytes(m.group(5)),
                bytes(m.group(6)));
    }

    /** {@code 372.53 GiB} to bytes, as PyTorch's format_size writes sizes. */
    private static long bytes(String size) {
        String[] p = size.trim().split("\\s+");
        if (p.length != 2) {
            return -1;
        }
        double v;
        try {
            v = Double.parseDouble(p[0]);
        } catch (NumberFormatException e) {
            return -1;
        }
        double mult =
                switch (p[1].toLowerCase(Locale.ROOT)) {
                    case "bytes", "byte", "b" -> 1;
                    case "kib" -> 1024;
                    case "mib" -> 1024.0 * 1024;
                    case "gib" -> 1024.0 * 1024 * 1024;
                    case "tib" -> 1024.0 * 1024 * 1024 * 1024;
                    default -> -1;
                };
        return mult < 0 ? -1 : Math.round(v * mult);
    }
}
