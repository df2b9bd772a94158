package io.jenkins.plugins.gpusanitizer.results;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import hudson.model.Run;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * The one place that finds "the result of the step with this id" in a build, and walks a build's
 * history for it. Every walk is bounded: builds are loaded lazily from disk, and a job can have
 * thousands; a walk visits at most its limit of builds, with or without a result, and at most {@link
 * #HISTORY_LIMIT} however it is asked.
 */
public final class ByIdResultSelector {
    /** The most builds any history walk visits (the reference build, the failure time, the trend, the retention). */
    public static final int HISTORY_LIMIT = 50;

    /** One build of the history with its result of the id. */
    public record Found(Run<?, ?> build, GpuSanitizeBuildAction action) {}

    private final String id;

    public ByIdResultSelector(String id) {
        this.id = id;
    }

    /** This id's result in a build, if it has one. */
    public Optional<GpuSanitizeBuildAction> select(@CheckForNull Run<?, ?> build) {
        if (build == null) {
            return Optional.empty();
        }
        return build.getActions(GpuSanitizeBuildAction.class).stream()
                .filter(action -> action.getId().equals(id))
                .findFirst();
    }

    /**
     * The builds with a result of this id among the {@code limit} builds from {@code first} on (itself
     * included), stepping with {@code previous}: {@link #previousBuild} or {@link
     * #previousCompletedBuild}. Newest first, and lazy: a caller that stops early loads no more builds.
     */
    public Stream<Found> history(@CheckForNull Run<?, ?> first, int limit, UnaryOperator<Run<?, ?>> previous) {
        return Stream.iterate(first, Objects::nonNull, previous)
                .limit(Math.min(limit, HISTORY_LIMIT))
                .flatMap(build -> select(build).map(action -> new Found(build, action)).stream());
    }

    /** Steps back over every build, running ones included. */
    public static Run<?, ?> previousBuild(Run<?, ?> build) {
        return build.getPreviousBuild();
    }

    /** Steps back over completed builds. */
    public static Run<?, ?> previousCompletedBuild(Run<?, ?> build) {
        return build.getPreviousCompletedBuild();
    }
}
