package io.jenkins.plugins.gpusanitizer.engine.report;

/** One failing rank's first failure; {@code fromLauncher}: read from the launcher's failure table. */
public record RankFailureJson(
        int rank,
        String errorClass,
        String exceptionType,
        String message,
        LocationJson userFrame,
        boolean fromLauncher) {}
