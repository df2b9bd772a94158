package io.jenkins.plugins.gpusanitizer.engine.probe;

import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The step by which each process of the blocking run had launched all its kernels (issue #49): its last {@code census}
 * count (the probe reads the census's counter at each optimizer step and backward pass) against the census's total at
 * the process's exit. Kernels first launched after the last step (an evaluation or a save at the end) leave the total
 * above the last count: then nothing bounds the sanitizer run.
 *
 * <p>Counts: a count read at step S's post hook covers the kernels of step S; one read as backward pass B begins covers
 * step S+1's forward. In backward passes, a count read at pass B's call covers its forward; one read at a step's hook
 * (after pass B) covers pass B. The sanitizer run stops one unit later: every kernel then ran at least once under the
 * tool, if the job launches in the same order under it (the assumption the report states).
 *
 * @param unit  {@link CoverageDecision#STEPS} or {@link CoverageDecision#BACKWARD}; null when no stop is possible
 * @param last  the unit's count by which every process had launched all its kernels
 * @param of    the blocking run's count in that unit: the largest of its processes'
 * @param why   where no stop is possible, why
 */
record StopPoint(String unit, long last, long of, String why) {

    static StopPoint of(Map<Long, Long> totals, ProbeLog log) {
        long lastSteps = 0;
        long lastBackward = 0;
        long ofSteps = 0;
        long ofBackward = 0;
        boolean allStep = true;
        boolean allBackward = true;
        int counted = 0;
        for (Map.Entry<Long, Long> total : totals.entrySet()) {
            long pid = total.getKey();
            if (total.getValue() <= 0) {
                continue;
            }
            counted++;
            List<ProbeLog.CensusCount> counts =
                    log.census().stream().filter(c -> c.pid() == pid).toList();
            ProbeLog.CensusCount last = counts.stream()
                    .max(Comparator.comparingLong(ProbeLog.CensusCount::distinct))
                    .orElse(null);
            if (last == null) {
                return none("process " + pid + " launched its kernels where the probe counted no optimizer step or"
                        + " backward pass");
            }
            if (last.distinct() < total.getValue()) {
                return none("process " + pid + " launched " + (total.getValue() - last.distinct())
                        + " new kernel(s) after its last optimizer step or backward pass (an evaluation or a save at"
                        + " the end), which only the whole run reaches");
            }
            ProbeLog.Work work = log.work().get(pid);
            long steps = work == null ? 0 : work.steps();
            long backward = work == null ? 0 : work.backward();
            allStep &= steps > 0;
            allBackward &= backward > 0;
            ofSteps = Math.max(ofSteps, steps);
            ofBackward = Math.max(ofBackward, backward);
            lastSteps = Math.max(lastSteps, last.steps() + ("backward".equals(last.hook()) ? 1 : 0));
            lastBackward = Math.max(lastBackward, last.backward());
        }
        if (counted == 0) {
            return none("the census counted no kernel");
        }
        if (allStep) {
            return new StopPoint(CoverageDecision.STEPS, lastSteps, ofSteps, null);
        }
        if (allBackward) {
            return new StopPoint(CoverageDecision.BACKWARD, lastBackward, ofBackward, null);
        }
        return none("a process of the job that launched kernels took no optimizer step or backward pass to stop at");
    }

    private static StopPoint none(String why) {
        return new StopPoint(null, 0, 0, why);
    }

    CoverageDecision decision(int kernels) {
        if (unit == null) {
            return CoverageDecision.toEnd(why);
        }
        String word = CoverageDecision.word(unit);
        long at = last + 1;
        if (at >= of) {
            return CoverageDecision.toEnd(
                    "the blocking run launched new kernels until its " + word + " " + last + " of " + of);
        }
        return new CoverageDecision(
                CoverageMode.KERNELS.id(),
                unit,
                at,
                of,
                kernels,
                "the blocking run had launched all " + kernels + " of its kernels by its " + word + " " + last
                        + " of " + of + ": the sanitizer run checks every launch up to its " + word + " " + at
                        + " and ends the job there");
    }
}
