package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The buffer a defect's first access ran past (issue #42; docs/how-it-works.md): memcheck's nearest
 * allocation named from the sanitizer run's allocation record. Evidence only: not in the fingerprint.
 *
 * @param placement {@code after}, {@code before}, {@code inside} (misaligned), {@code freed} (inside memory
 *                  the job had freed), {@code unnamed} (memcheck's allocation is none the record names)
 * @param address   the accessed address
 * @param base      the allocation's first byte, or null
 * @param size      its size in bytes, or null
 * @param distance  memcheck's bytes after/before it (1 = the first byte past the end), or the offset inside
 * @param site      the job's line that allocated it, or null
 * @param shape     what the memory held when the job died, e.g. {@code float32 [1600]}, or null
 * @param summary   the one line the reports show
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"placement", "address", "base", "size", "distance", "site", "shape", "summary"})
public record BufferJson(
        String placement,
        String address,
        String base,
        Long size,
        Long distance,
        LocationJson site,
        String shape,
        @JsonInclude(JsonInclude.Include.NON_NULL) LocationJson freedAt,
        String summary) {}
