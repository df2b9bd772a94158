package io.jenkins.plugins.gpusanitizer.engine.model;

import java.text.NumberFormat;
import java.util.Locale;

/**
 * What the buffer an invalid access ran past was: memcheck's nearest allocation, named from the probe's
 * allocation record of the sanitizer run (docs/how-it-works.md, "Which buffer"). Evidence, never identity:
 * it is not part of a defect's fingerprint.
 *
 * @param placement what is known of the address's place
 * @param address   the accessed address (hex)
 * @param base      the allocation's first byte (hex), or null when none is known
 * @param size      its size in bytes, or -1
 * @param distance  memcheck's count of bytes after or before it (1 = the first byte past the end), or the offset inside
 * @param site      the job's line that allocated it, or null when not known
 * @param shape     what the memory held when the job died ({@code float32 [1600]}), or null
 * @param freedAt   the job's line that freed it, for a block freed before the access; else null
 * @param why       for an unnamed buffer: what memcheck said and why the record cannot name it; else null
 * @param summary   the one line the reports show ({@link #sentence}), or null before {@link #described}
 */
public record BufferEvidence(
        Placement placement,
        String address,
        String base,
        long size,
        long distance,
        SourceLocation site,
        String shape,
        SourceLocation freedAt,
        String why,
        String summary) {

    /** This evidence with its one line, the job's files named as {@code paths} names them. */
    public BufferEvidence described(WorkPaths paths) {
        return new BufferEvidence(placement, address, base, size, distance, site, shape, freedAt, why, sentence(paths));
    }

    /** How far memcheck's nearest allocation may be before it stops being "the buffer the access ran past". */
    static final long FAR = 1L << 20;

    /** What is known of the accessed address. */
    public enum Placement {
        /** past the end of a named buffer */
        AFTER("after"),
        /** before the start of a named buffer */
        BEFORE("before"),
        /** inside a live buffer (a misaligned access) */
        INSIDE("inside"),
        /** inside a block the job freed before the access, which no live allocation covers */
        USE_AFTER_FREE("use-after-free"),
        /** memcheck's nearest allocation is none the job's record names */
        UNNAMED("unnamed");

        private final String id;

        Placement(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }
    }

    /** One line: {@code 1 byte past the end of a 6,400-byte buffer (float32 [1600]) allocated at trainer/ops.py:27}. */
    public String sentence(WorkPaths paths) {
        String buffer = "a " + bytes(size) + "-byte buffer" + (shape == null ? "" : " (" + shape + ")");
        String at = (site == null ? "" : " allocated at " + paths.at(site))
                + (freedAt == null ? "" : " and freed at " + paths.at(freedAt));
        return switch (placement) {
            case AFTER ->
                distance > Math.max(size, FAR)
                        ? count(distance) + " past the end of the nearest allocation, " + buffer + at
                                + ": too far from it to say the access meant that buffer"
                        : count(distance) + " past the end of " + buffer + at;
            case BEFORE ->
                distance > Math.max(size, FAR)
                        ? count(distance) + " before the nearest allocation, " + buffer + at
                                + ": too far from it to say the access meant that buffer"
                        : count(distance) + " before the start of " + buffer + at;
            case INSIDE -> "misaligned, inside " + buffer + at + ", " + count(distance) + " from its start";
            case USE_AFTER_FREE ->
                "use after free: inside " + buffer + at + (freedAt == null ? " and freed before the access" : "") + ", "
                        + count(distance) + " from its start";
            case UNNAMED -> why;
        };
    }

    public static String count(long n) {
        return bytes(n) + (n == 1 ? " byte" : " bytes");
    }

    public static String bytes(long n) {
        return NumberFormat.getIntegerInstance(Locale.ROOT).format(n);
    }
}
