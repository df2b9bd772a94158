package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

@JsonPropertyOrder({
    "id",
    "tool",
    "kind",
    "severity",
    "message",
    "kernel",
    "records",
    "suppressed",
    "suppressedBy",
    "inVendorLibrary",
    "vendorModule",
    "launcher",
    "deviceLocation",
    "hostLocation",
    "examples",
    "detail",
    "buffer",
    "hostStack",
    "status"
})
public record DefectJson(
        String id,
        String tool,
        String kind,
        String severity,
        String message,
        String kernel,
        long records,
        boolean suppressed,
        SuppressionJson suppressedBy,
        boolean inVendorLibrary,
        String vendorModule,
        String launcher,
        LocationJson deviceLocation,
        LocationJson hostLocation,
        List<String> examples,
        String detail,
        @JsonInclude(JsonInclude.Include.NON_NULL) BufferJson buffer,
        List<FrameJson> hostStack,
        String status) {

    /** Without a buffer: the defects of reports written before issue #42, and tests. */
    public DefectJson(
            String id,
            String tool,
            String kind,
            String severity,
            String message,
            String kernel,
            long records,
            boolean suppressed,
            SuppressionJson suppressedBy,
            boolean inVendorLibrary,
            String vendorModule,
            String launcher,
            LocationJson deviceLocation,
            LocationJson hostLocation,
            List<String> examples,
            String detail,
            List<FrameJson> hostStack,
            String status) {
        this(
                id,
                tool,
                kind,
                severity,
                message,
                kernel,
                records,
                suppressed,
                suppressedBy,
                inVendorLibrary,
                vendorModule,
                launcher,
                deviceLocation,
                hostLocation,
                examples,
                detail,
                null,
                hostStack,
                status);
    }
}
