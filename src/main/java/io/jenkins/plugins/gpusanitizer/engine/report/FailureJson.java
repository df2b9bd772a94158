package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

public record FailureJson(
        String phase,
        String source,
        String errorClass,
        String exceptionType,
        String message,
        boolean asyncWarning,
        boolean dsaNotCompiled,
        LocationJson userFrame,
        List<LocationJson> traceback,
        List<AssertionJson> assertions,
        long assertionLines,
        OomJson oom,
        Integer rank,
        List<RankFailureJson> ranks,
        LauncherJson launcher,
        List<CudaMessageJson> messages,
        LocationJson compiledFrame,
        List<String> generatedFiles,
        LocationJson modelLine) {}
