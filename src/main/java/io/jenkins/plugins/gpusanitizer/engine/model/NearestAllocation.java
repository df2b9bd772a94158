package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What memcheck says of an invalid access's place: the address, and the allocation nearest to it
 * ({@code Access to 0x7f19...100 is out of bounds and is 1 bytes after the nearest allocation at 0x7f19...800 of
 * size 6,400 bytes}). Only the text output says the second half; the XML ({@code what/address}) has the address
 * alone, so a record from XML has no allocation here.
 *
 * @param address  the accessed address, lower-case hex with {@code 0x}
 * @param relation where the address lies against the allocation, or null when the record names none
 * @param distance memcheck's count of bytes ({@code 1 bytes after} is the first byte past the end), 0 inside
 * @param base     the allocation's first byte, hex, or null
 * @param size     the allocation's size in bytes, or -1 when none is named
 * @param misaligned whether memcheck called the access misaligned ({@code Access to 0x... is misaligned}): such an
 *                 access is flagged inside live memory too, unlike an out-of-bounds one
 */
public record NearestAllocation(
        String address, Relation relation, long distance, String base, long size, boolean misaligned) {

    /** Where the accessed address lies against the nearest allocation. */
    public enum Relation {
        AFTER,
        BEFORE,
        INSIDE
    }

    private static final Pattern ADDRESS = Pattern.compile("(?:Access to|Address) (0x[0-9a-fA-F]+)");
    private static final Pattern OUTSIDE = Pattern.compile(
            "is ([0-9,]+) bytes (after|before) the nearest allocation at (0x[0-9a-fA-F]+) of size ([0-9,]+) bytes");
    private static final Pattern MISALIGNED = Pattern.compile("\\s*is misaligned");
    private static final Pattern INSIDE =
            Pattern.compile("is inside the nearest allocation at (0x[0-9a-fA-F]+) of size ([0-9,]+) bytes");

    /** From a record's detail text (text or XML parser); empty when it names no address. */
    public static Optional<NearestAllocation> parse(String detail) {
        if (detail == null) {
            return Optional.empty();
        }
        Matcher a = ADDRESS.matcher(detail);
        if (!a.find()) {
            return Optional.empty();
        }
        String address = a.group(1).toLowerCase(java.util.Locale.ROOT);
        boolean misaligned =
                MISALIGNED.matcher(detail).region(a.end(), detail.length()).lookingAt();
        Matcher o = OUTSIDE.matcher(detail);
        if (o.find(a.end())) {
            return Optional.of(new NearestAllocation(
                    address,
                    o.group(2).equals("after") ? Relation.AFTER : Relation.BEFORE,
                    number(o.group(1)),
                    o.group(3).toLowerCase(java.util.Locale.ROOT),
                    number(o.group(4)),
                    misaligned));
        }
        Matcher i = INSIDE.matcher(detail);
        if (i.find(a.end())) {
            return Optional.of(new NearestAllocation(
                    address,
                    Relation.INSIDE,
                    0,
                    i.group(1).toLowerCase(java.util.Locale.ROOT),
                    number(i.group(2)),
                    misaligned));
        }
        return Optional.of(new NearestAllocation(address, null, 0, null, -1, misaligned));
    }

    /** Whether memcheck named an allocation (the text output does, the XML does not). */
    public boolean named() {
        return relation != null;
    }

    /** The accessed address as a number (unsigned 64-bit in a long). */
    public long addressValue() {
        return hex(address);
    }

    public static long hex(String h) {
        return Long.parseUnsignedLong(h.startsWith("0x") || h.startsWith("0X") ? h.substring(2) : h, 16);
    }

    private static long number(String s) {
        try {
            return Long.parseLong(s.replace(",", ""));
        } catch (NumberFormatException e) {
            return -1; // beyond a long: no real allocation is that large
        }
    }
}
