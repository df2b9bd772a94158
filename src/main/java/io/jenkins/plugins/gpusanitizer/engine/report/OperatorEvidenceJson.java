package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * A watched operator that raised, with its arguments (the probe, blocking phase).
 *
 * @param summary e.g. {@code aten::embedding at train.py:23: index max 5000, weight has 5000 rows}
 */
public record OperatorEvidenceJson(
        String phase,
        String operator,
        String summary,
        LocationJson site,
        List<LocationJson> stack,
        String rank,
        long pid,
        String exceptionType,
        String message,
        IndexJson index,
        List<TensorArgJson> args) {}
