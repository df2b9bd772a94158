package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.probe.CoverageDecision;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import io.jenkins.plugins.gpusanitizer.engine.report.CoverageReach;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What each sanitizer run's coverage was (issue #49), from its {@value CoverageDecision#FILE} and its probe's
 * {@code coverage-stop} records: which mode ran, where a run in mode {@code kernels} ended and why, or why it checked
 * the whole job. A job ended at a stop the runner never decided (a stop file someone else wrote) is an error: what came
 * after it was not checked, and nothing says it need not be.
 */
final class CoverageReasons {
    static final String STOPPED = "coverage-stop";
    static final String WHOLE = "coverage-whole";
    static final String UNSET = "coverage-stop-unset";

    private CoverageReasons() {}

    /**
     * Each sanitizer run's reach ({@link CoverageReach}), by its phase, in the record's order.
     *
     * @param targetDied the runs whose tool output said its target returned an error or died
     */
    static Map<PhaseJson, CoverageReach> reaches(RunRecord record, RunDirectory dir, Set<String> targetDied) {
        Map<PhaseJson, CoverageReach> out = new LinkedHashMap<>();
        if (record == null || record.execution() == null || record.execution().phases() == null) {
            return out;
        }
        for (PhaseJson p : record.execution().phases()) {
            if (p != null && p.name() != null && PhaseReasons.phaseOf(p) == Phase.SANITIZER) {
                out.put(p, CoverageReach.of(dir.dir(p.name()), p, targetDied.contains(p.name())));
            }
        }
        return out;
    }

    static List<Reason> of(Map<PhaseJson, CoverageReach> reaches) {
        List<Reason> out = new ArrayList<>();
        reaches.forEach((p, reach) -> {
            Reason r = of(p, reach);
            if (r != null) {
                out.add(r);
            }
        });
        return out;
    }

    /**
     * The sanitizer runs that ended otherwise than by themselves (they died under the tool, timed out, were stopped)
     * after they had passed the coverage stop decided once the blocking run ended: what came after the stop was not to
     * be checked, so how they ended is no finding ({@link SanitizerOnlyDeath}).
     */
    static Set<String> pastTheirStop(Map<PhaseJson, CoverageReach> reaches) {
        Set<String> out = new LinkedHashSet<>();
        reaches.forEach((p, reach) -> {
            if (reach.kind() == CoverageReach.Kind.PAST_ITS_STOP) {
                out.add(p.name());
            }
        });
        return out;
    }

    static Reason of(PhaseJson p, CoverageReach reach) {
        CoverageDecision decision = reach.decision();
        ProbeLog log = reach.log();
        List<ProbeLog.CoverageStop> stops = log.coverageStops();
        String name = p.name();
        if (!stops.isEmpty() && (decision == null || !decision.agreesWith(stops))) {
            ProbeLog.CoverageStop s = stops.get(0);
            return Reason.error(
                    UNSET,
                    name + " was ended by its probe at " + s.unit() + " " + s.at() + ", a coverage stop the gate never"
                            + " set ("
                            + (decision == null || !decision.stops()
                                    ? "it decided none"
                                    : "it decided " + decision.unit() + " " + decision.at())
                            + "; the stop file " + CoverageDecision.STOP_FILE + " was written by someone else): the"
                            + " rest of the job was not checked");
        }
        if (decision == null) {
            return null; // a run directory from before coverage modes
        }
        if (CoverageMode.FULL.id().equals(decision.mode())) {
            return Reason.info(WHOLE, name + " checked every launch of the whole job (coverage full)");
        }
        if (decision.stops() && !stops.isEmpty()) {
            String word = CoverageDecision.word(decision.unit());
            long reached = decision.reached(stops);
            return Reason.info(
                    STOPPED,
                    name + " checked every launch until the job's " + word + " " + reached + " (of the "
                            + decision.of() + " the blocking run took) and ended the job there (coverage kernels"
                            + (reached == decision.at()
                                    ? ""
                                    : "; its stop was set at " + word + " " + decision.at() + ", which the job had"
                                            + " passed by the time the blocking run ended")
                            + "): the blocking run had launched all " + decision.kernels() + " of its kernels by its "
                            + word + " " + (decision.at() - 1) + ". Each of them ran under the tool by then if the job"
                            + " launches them in the same order there; the rest of the job was not checked, so a fault"
                            + " that needs a later launch of a kernel is not looked for (coverage full checks it all)"
                            + (stops.stream().anyMatch(ProbeLog.CoverageStop::cudnnBenchmark)
                                    ? ". cuDNN's benchmark mode was on: it picks its kernels by timing them, and under"
                                            + " the tool it may have picked others than the plain run's"
                                    : ""));
        }
        if (reach.kind() != CoverageReach.Kind.TO_ITS_END) {
            return reach.kind() == CoverageReach.Kind.PAST_ITS_STOP ? pastTheStop(name, decision, log) : null;
        }
        if (decision.stops()) {
            return Reason.info(
                    WHOLE,
                    name + " checked the whole job (coverage kernels): it ended before the stop" + " at "
                            + decision.unit() + " " + decision.at() + " was reached");
        }
        return Reason.info(
                WHOLE,
                decision.decided()
                        ? name + " " + decision.reason().replaceFirst("^the sanitizer run ", "") + " (coverage kernels)"
                        : name
                                + " checked the whole job (coverage kernels): it ended before the blocking run beside it,"
                                + " whose kernel census decides where it may stop");
    }

    /**
     * A run that died under the tool (or timed out, or was stopped) after the job's step at which the coverage stop,
     * decided once the blocking run ended, would have ended it.
     */
    private static Reason pastTheStop(String name, CoverageDecision decision, ProbeLog log) {
        String word = CoverageDecision.word(decision.unit());
        return Reason.info(
                STOPPED,
                name + " checked every launch until at least the job's " + word + " "
                        + decision.reachedBeforeItsEnd(log)
                        + " (of the " + decision.of() + " the blocking run took) and ended there before its stop was"
                        + " decided (coverage kernels): the stop, decided once the blocking run ended, was at " + word
                        + " " + decision.at() + ", since the blocking run had launched all " + decision.kernels()
                        + " of its kernels by its " + word + " " + (decision.at() - 1) + ". Each of them ran under the"
                        + " tool by then if the job launches them in the same order there; the rest of the job was not"
                        + " checked, and was not to be (coverage full checks it all)");
    }
}
