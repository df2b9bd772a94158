package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.gate.ProofOfWork;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The proof of work against the reference build (issue #47): each run's work weighed against the same run of the same
 * command there. A job that resumes from state outside its working directory (a checkpoint under /tmp) takes no step
 * in any run of its second build, so its own runs agree with each other; the reference's runs did the work, and that
 * is the evidence. The same holds for the sanitizer run of a shorter {@code sanitizerCommand}: the reference's
 * sanitizer run of that command says what it does. Rules as {@link ProofOfWork}'s: a run that did none of the work the
 * reference's did, or under half of it in under three quarters of its time; a run that stopped at a defect or was
 * stopped by the gate is not judged.
 */
final class ReferenceWork {
    static final String CODE = "less-work";

    private ReferenceWork() {}

    static List<ReasonJson> reasons(Report current, Report reference, String referenceName) {
        List<ReasonJson> out = new ArrayList<>();
        if (current.execution() == null || reference.execution() == null) {
            return out; // without the commands, "the same run" cannot be told
        }
        for (WorkJson now : current.work()) {
            WorkJson then = reference.work().stream()
                    .filter(w -> w.run().equals(now.run()))
                    .findFirst()
                    .orElse(null);
            PhaseJson phaseNow = phase(current, now.run());
            PhaseJson phaseThen = phase(reference, now.run());
            if (then == null
                    || !then.worked()
                    || !now.counted()
                    || !"by-itself".equals(now.end())
                    || now.stoppedAtDefect()
                    || phaseNow == null
                    || phaseThen == null
                    || !command(phaseNow, current).equals(command(phaseThen, reference))
                    || saidAlready(current, now.run())) {
                continue;
            }
            boolean bySteps = then.optimizerSteps() != null && then.optimizerSteps() > 0;
            long did = value(bySteps ? now.optimizerSteps() : now.backwardPasses());
            long could = value(bySteps ? then.optimizerSteps() : then.backwardPasses());
            boolean none = !now.worked();
            if (!none
                    && (did >= could * ProofOfWork.FRACTION
                            || phaseNow.wallSeconds() >= phaseThen.wallSeconds() * ProofOfWork.SOONER)) {
                continue;
            }
            String unit = bySteps ? " optimizer step(s)" : " backward pass(es)";
            out.add(new ReasonJson(
                    "error",
                    CODE,
                    now.run() + " did " + did + unit + " where the same run of the same command did " + could
                            + " in the reference build (" + referenceName + "): it did "
                            + (none ? "none" : "a fraction") + " of the job's work, and only that much was checked"
                            + ProofOfWork.cause(read(now), now.workspace() != null)));
        }
        return out;
    }

    /** The run's argv with the run directory's path (a sanitizer run's --log-file, --save) taken out. */
    private static List<String> command(PhaseJson p, Report r) {
        String runDir = r.execution().runDirectory();
        List<String> argv = p.command() == null ? List.of() : p.command();
        if (runDir == null || runDir.isEmpty()) {
            return argv;
        }
        return argv.stream().map(a -> a.replace(runDir, "RUN_DIR")).toList();
    }

    private static PhaseJson phase(Report r, String name) {
        return r.execution().phases() == null
                ? null
                : r.execution().phases().stream()
                        .filter(p -> p != null && Objects.equals(p.name(), name))
                        .findFirst()
                        .orElse(null);
    }

    /** The build's own proof of work already said that this run did less: one sentence is enough. */
    private static boolean saidAlready(Report current, String run) {
        return current.reasons().stream()
                .anyMatch(r -> CODE.equals(r.code()) && r.message().startsWith(run + " "));
    }

    private static List<ProbeLog.StateAccess> read(WorkJson w) {
        return w.stateOutside().stream()
                .filter(s -> "read".equals(s.event()))
                .map(s -> new ProbeLog.StateAccess(0, s.event(), s.path(), s.where(), null))
                .toList();
    }

    private static long value(Long n) {
        return n == null ? 0 : n;
    }
}
