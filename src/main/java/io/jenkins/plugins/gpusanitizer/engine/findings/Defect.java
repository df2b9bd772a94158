package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence;
import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.List;

/**
 * Records grouped by fingerprint: one bug, however many threads hit it.
 *
 * @param id              the fingerprint
 * @param tool            the sanitizer tool
 * @param kind            what it is
 * @param message         the headline of its first record
 * @param kernel          the kernel as first printed, or null
 * @param deviceLocation  the device source line, or null without line info
 * @param hostLocation    the first user host frame, or null
 * @param records         how many records were printed for it
 * @param examples        a few threads/blocks that hit it
 * @param detail          the first record's detail (address, allocation)
 * @param hostStack       the first record's host stack, innermost first (bounded)
 * @param vendorModule    the vendor library that launched the kernel, or null
 * @param launcher        the host function that launched the kernel (past driver and runtime), or null
 * @param error           false for tool warnings (racecheck warnings)
 * @param suppressedBy    the rule that suppressed it, or null
 * @param buffer          the buffer its first record's access ran past, or null (evidence, not in the fingerprint)
 */
public record Defect(
        String id,
        Tool tool,
        Kind kind,
        String message,
        String kernel,
        SourceLocation deviceLocation,
        SourceLocation hostLocation,
        long records,
        List<String> examples,
        String detail,
        List<Frame> hostStack,
        String vendorModule,
        String launcher,
        boolean error,
        Suppression suppressedBy,
        BufferEvidence buffer) {

    public Defect {
        examples = List.copyOf(examples);
        hostStack = List.copyOf(hostStack);
    }

    public Defect(
            String id,
            Tool tool,
            Kind kind,
            String message,
            String kernel,
            SourceLocation deviceLocation,
            SourceLocation hostLocation,
            long records,
            List<String> examples,
            String detail,
            List<Frame> hostStack,
            String vendorModule,
            String launcher,
            boolean error,
            Suppression suppressedBy) {
        this(
                id,
                tool,
                kind,
                message,
                kernel,
                deviceLocation,
                hostLocation,
                records,
                examples,
                detail,
                hostStack,
                vendorModule,
                launcher,
                error,
                suppressedBy,
                null);
    }

    public boolean suppressed() {
        return suppressedBy != null;
    }

    public boolean inVendorLibrary() {
        return vendorModule != null;
    }

    public Defect withSuppression(Suppression s) {
        return new Defect(
                id,
                tool,
                kind,
                message,
                kernel,
                deviceLocation,
                hostLocation,
                records,
                examples,
                detail,
                hostStack,
                vendorModule,
                launcher,
                error,
                s,
                buffer);
    }

    public Defect withDeviceLocation(SourceLocation l) {
        return new Defect(
                id,
                tool,
                kind,
                message,
                kernel,
                l,
                hostLocation,
                records,
                examples,
                detail,
                hostStack,
                vendorModule,
                launcher,
                error,
                suppressedBy,
                buffer);
    }

    public Defect withBuffer(BufferEvidence b) {
        return new Defect(
                id,
                tool,
                kind,
                message,
                kernel,
                deviceLocation,
                hostLocation,
                records,
                examples,
                detail,
                hostStack,
                vendorModule,
                launcher,
                error,
                suppressedBy,
                b);
    }

    /** Why a defect is not gated: the rule's id and its explanation. */
    public record Suppression(String rule, String reason) {}
}
