package io.jenkins.plugins.gpusanitizer.engine.run;

import java.util.Locale;

/**
 * Where the regression run goes on one GPU, and why, in the words the console, the report (reason {@code
 * regression-plan}) and the phase's note use. Beside the sanitizer run it costs no wall time of its own, but it
 * shares the card: only when the card has room for one more job does it go there.
 *
 * <p>The room is judged from what the card held while the sanitizer and blocking runs ran beside each other
 * (their first seconds, or the whole blocking run when it ended first): the regression run is the job once more,
 * which needs at most what the two took together (the blocking run is the same job; the sanitizer's uncached one
 * holds no cache). It goes beside them when the card's memory still free at that peak holds as much again and a
 * tenth of the card in reserve, for what the job allocates later. A regression run that ran out of memory beside
 * them all the same is run again alone ({@link PhaseScheduler}).
 *
 * @param beside true: started beside the sanitizer run; false: after it, alone
 * @param why    the plan and its reason, one line
 */
record RegressionPlan(boolean beside, String why) {
    /** The part of the card kept free beyond the job's first seconds' peak. */
    static final double RESERVE = 0.10;

    /**
     * Before the whole watch: how many times the first seconds' peak must fit in the card's free memory (beside the
     * reserve) for the regression run to start at once. Each second of watching is a second the gate waits for a
     * job as short as its sanitizer run (a 17 s job: 10 s of watching made it 1.8x instead of 1.4x the job on the
     * H200); room for three more jobs that size leaves room for the job to treble after its first seconds.
     */
    static final double EARLY_ROOM_FACTOR = 3;

    /**
     * What the card must have gained before the early rule looks at it: at least a CUDA context (about 500 MiB with
     * torch on the H200). Less is a job still importing its libraries: its need is not known at all, and three times
     * nothing is no room (on the H200 the example jobs showed 1-22 MiB after 4 s).
     */
    static final double EARLY_MIN_MIB = 256;

    static RegressionPlan after(String why) {
        return new RegressionPlan(false, "regression after the sanitizer run, one after the other: " + why);
    }

    /**
     * The plan known before anything runs, or null when it depends on the card (decided by {@link
     * RegressionBeside}).
     */
    static RegressionPlan fixed(RunSpec spec) {
        if (!spec.overlapBlocking()) {
            return after("--no-overlap");
        }
        if (!spec.regressionBeside()) {
            return after("--regression-after (its memory curve and throughput are then the job's alone)");
        }
        if (!spec.phases().contains(Phase.BLOCKING)) {
            return after("no blocking run beside the sanitizer run shows how much GPU memory the job needs");
        }
        return null;
    }

    /**
     * The plan after only {@code watched} seconds of a longer watch: beside when the card has room for the job's
     * peak so far {@link #EARLY_ROOM_FACTOR} times over and the reserve; null (watch on) otherwise.
     */
    static RegressionPlan early(CardMemory card, double watched) {
        if (!showsContext(card)
                || card.freeAtPeakMiB() < EARLY_ROOM_FACTOR * card.peakUsedMiB() + RESERVE * card.totalMiB()) {
            return null;
        }
        return new RegressionPlan(
                true,
                "regression beside the sanitizer run: " + figures(card, watched, false)
                        + String.format(
                                Locale.ROOT,
                                ", room for it %.0f times over and a tenth of the card",
                                EARLY_ROOM_FACTOR));
    }

    /**
     * The plan from the reference build's need before anything shows on the card: beside when the card's memory free so
     * far holds {@code referencePeakMiB} {@link #EARLY_ROOM_FACTOR} times over (the sanitizer, blocking and regression
     * runs, each the job once) and the reserve; null (watch as without a reference) otherwise, or before the sampler's
     * first figures. A job that needs more than its reference did and runs out beside the others runs again alone.
     */
    static RegressionPlan fromReference(CardMemory card, double referencePeakMiB) {
        if (card == null || card.freeAtPeakMiB() < EARLY_ROOM_FACTOR * referencePeakMiB + RESERVE * card.totalMiB()) {
            return null;
        }
        return new RegressionPlan(
                true,
                String.format(
                        Locale.ROOT,
                        "regression beside the sanitizer run from the start: the reference build's job held at most"
                                + " %,.0f MiB of GPU memory (its report) and the card has %,.0f MiB free (%,.0f MiB"
                                + " total): room for it %.0f times over and a tenth of the card",
                        referencePeakMiB,
                        card.freeAtPeakMiB(),
                        card.totalMiB(),
                        EARLY_ROOM_FACTOR));
    }

    /** Whether the card gained at least a CUDA context since the first sample: the job's need begins to show. */
    static boolean showsContext(CardMemory card) {
        return card != null && card.peakUsedMiB() - card.firstUsedMiB() >= EARLY_MIN_MIB;
    }

    /**
     * The figures and what they cover (issue #48, 5: "the job peaked at 4 MiB" was the first 10 s of a job, its
     * imports): the whole blocking run, or only the first seconds of the two runs, which is not the job's peak.
     */
    private static String figures(CardMemory card, double watched, boolean wholeBlockingRun) {
        return String.format(
                Locale.ROOT,
                "card has %,.0f MiB free; the sanitizer and blocking runs together held at most %,.0f MiB %s"
                        + " (%,.0f MiB total)",
                card.freeAtPeakMiB(),
                card.peakUsedMiB(),
                wholeBlockingRun
                        ? String.format(Locale.ROOT, "over the whole blocking run (%.0f s)", watched)
                        : String.format(
                                Locale.ROOT, "in their first %.0f s on the card, not the job's whole run", watched),
                card.totalMiB());
    }

    /**
     * The plan after the whole watch while the blocking run goes on, or null to watch on: a card that gained less
     * than a CUDA context shows a job still importing its libraries, whose need is not known at all.
     */
    static RegressionPlan afterWatch(CardMemory card, double watched) {
        return showsContext(card) ? fromCard(card, watched, false) : null;
    }

    /**
     * The plan from the card's memory while the sanitizer and blocking runs shared it for {@code watched} seconds.
     *
     * @param wholeBlockingRun whether the blocking run ended in that time, so that its figures cover all of it
     */
    static RegressionPlan fromCard(CardMemory card, double watched, boolean wholeBlockingRun) {
        if (card == null) {
            return after("the card's memory could not be read beside the blocking run (nvidia-smi gave no figures),"
                    + " so its room is unknown");
        }
        if (!card.rose()) {
            return after(String.format(
                    Locale.ROOT,
                    "the sanitizer and blocking runs showed no GPU memory in use in %.0f s, so the job's need is"
                            + " unknown",
                    watched));
        }
        double reserve = RESERVE * card.totalMiB();
        String figures = figures(card, watched, wholeBlockingRun);
        if (card.freeAtPeakMiB() >= card.peakUsedMiB() + reserve) {
            return new RegressionPlan(true, "regression beside the sanitizer run: " + figures);
        }
        return after(figures
                + String.format(
                        Locale.ROOT,
                        ": no room for the job once more and a reserve of %,.0f MiB (a tenth of the card)",
                        reserve));
    }
}
