package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

public record SanitizerRunJson(
        String tool,
        String recordsFrom,
        String textSource,
        String xmlSource,
        Long errorsTotal,
        Long errorsNotPrinted,
        long recordsParsed,
        int defects,
        int suppressedDefects,
        boolean complete,
        boolean targetReturnedError,
        boolean appCrashed,
        String leakSummary,
        List<String> toolFailures,
        List<String> problems) {}
