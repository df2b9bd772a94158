package io.jenkins.plugins.gpusanitizer.engine.report;

/** torchrun's ChildFailedError or mp.spawn's ProcessRaisedException: context, not the fault. */
public record LauncherJson(
        String kind, String exceptionType, Integer rootCauseRank, String detail, LocationJson userFrame) {}
