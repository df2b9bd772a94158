package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.List;

/**
 * One error record of compute-sanitizer, from its text or XML output. Volatile parts (address,
 * thread, block, distance to the nearest allocation) are kept for examples but never fingerprinted.
 *
 * @param tool        the tool that produced it
 * @param kind        what it reports
 * @param message     the headline, e.g. {@code Invalid __global__ write of size 4 bytes}
 * @param kernel      the kernel as printed (may carry a parameter list), or null (API errors, leaks)
 * @param pc          the device program counter offset ({@code 0x160}) or null
 * @param deviceLocation the device source line when the kernel has line info, else null
 * @param thread      {@code (x,y,z)} or null
 * @param block       {@code (x,y,z)} or null
 * @param detail      address / allocation detail lines joined, or null
 * @param hostFrames  innermost first, bounded
 * @param severityError false for racecheck warnings
 */
public record SanitizerRecord(
        Tool tool,
        Kind kind,
        String message,
        String kernel,
        String pc,
        SourceLocation deviceLocation,
        String thread,
        String block,
        String detail,
        List<Frame> hostFrames,
        boolean severityError) {

    /** Host frames kept per record: enough to reach the Python frames below a deep native stack. */
    public static final int MAX_FRAMES = 96;

    public SanitizerRecord {
        hostFrames = hostFrames instanceof FrameList ? hostFrames : List.copyOf(hostFrames);
    }

    /** The Python frames of the host stack, innermost first (cheap: no native frame is parsed). */
    public List<Frame> pythonFrames() {
        if (hostFrames instanceof FrameList fl) {
            return fl.pythonFrames();
        }
        return hostFrames.stream().filter(Frame::python).toList();
    }
}
