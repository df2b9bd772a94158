package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.Locale;

/** What a sanitizer record reports, independent of the output format it came from. */
public enum Kind {
    /** memcheck: access outside any allocation. */
    OUT_OF_BOUNDS,
    /** memcheck: access not aligned to its size. */
    MISALIGNED,
    /** memcheck: other invalid access (e.g. device heap). */
    INVALID_ACCESS,
    /** a device-side assert ({@code Warp assert}). */
    DEVICE_ASSERT,
    /** hardware exception, illegal instruction, UVM fault. */
    HARDWARE_EXCEPTION,
    /** device malloc/free error. */
    MALLOC_FREE_ERROR,
    /** {@code Program hit cudaError... on CUDA API call to ...}. */
    API_ERROR,
    /** {@code --leak-check full}: an allocation never freed. */
    LEAK,
    /** racecheck: shared-memory data race or hazard. */
    RACE,
    /** initcheck: read of uninitialised device memory. */
    UNINITIALIZED_READ,
    /** initcheck: allocated memory never used. */
    UNUSED_MEMORY,
    /** synccheck: barrier misuse. */
    BARRIER_ERROR,
    /** a record the parser saw but does not classify further. */
    OTHER;

    /** Computed once: fingerprints ask for it on every record. */
    private final String id = name().toLowerCase(Locale.ROOT).replace('_', '-');

    public String id() {
        return id;
    }

    /** Access errors are the ones a pre-merge gate exists for: they corrupt memory. */
    public boolean isAccessError() {
        return this == OUT_OF_BOUNDS
                || this == MISALIGNED
                || this == INVALID_ACCESS
                || this == HARDWARE_EXCEPTION
                || this == MALLOC_FREE_ERROR;
    }
}
