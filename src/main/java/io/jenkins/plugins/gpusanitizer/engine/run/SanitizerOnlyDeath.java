package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A job that died only under compute-sanitizer, with no error the tool recorded, while the runs without it
 * passed (issue #25, 2: torch.compile's CUDA graph trees stop the job under the tool; max-autotune crashed
 * the tool itself): an incompatibility of the job with the tool, not a bug found and not a broken job. The
 * gate says so and grades it UNSTABLE: never a pass (the tool checked the job only until it died), never an
 * ERROR or FAIL blamed on a clean job. When a run without the tool failed too, the death stays an error.
 *
 * <p>An out-of-memory only under the tool is the same kind of incompatibility, with its cause known (issue #48, 1):
 * karpathy/nanoGPT holds 234 MiB a step alone and ran out of the H100's 80 GB at step 21 under memcheck, where
 * PyTorch kept every step's activations alive (+1.87 GiB a step, with any of memcheck's options, with or without
 * the caching allocator). One sentence says what happened, what was checked and what the user can do.
 */
final class SanitizerOnlyDeath {
    private static final Set<String> DEATHS = Set.of("target-failed", "app-crashed");
    private static final Set<String> PASSED = Set.of(PhaseResult.PASSED, PhaseResult.STOPPED_AT_TARGET);

    private SanitizerOnlyDeath() {}

    static List<Reason> graded(RunRecord record, List<Reason> gateReasons) {
        return graded(record, gateReasons, null, Set.of());
    }

    /**
     * @param outOfMemory  the sanitizer run's out-of-memory line from its stderr, or null when it had none
     * @param pastTheirStop the sanitizer runs that died after their coverage stop ({@link CoverageReasons}): what they
     *                      died of came after what they were to check
     */
    static List<Reason> graded(
            RunRecord record, List<Reason> gateReasons, String outOfMemory, Set<String> pastTheirStop) {
        String passedWithout = passedWithoutTheTool(record);
        if (passedWithout == null) {
            return gateReasons;
        }
        boolean said = false;
        List<Reason> out = new ArrayList<>(gateReasons.size());
        for (Reason r : gateReasons) {
            boolean death = r.level() == Reason.Level.ERROR && DEATHS.contains(r.code());
            boolean oomReason = "oom".equals(r.code()) && r.message().startsWith("sanitizer-");
            String past = (death || oomReason) ? pastItsStop(r, pastTheirStop) : null;
            if (past != null) {
                if (!said) {
                    out.add(afterTheStop(past, outOfMemory, r, passedWithout));
                    said = true;
                }
            } else if (outOfMemory != null && (death || oomReason)) {
                if (!said) { // the job died of that out-of-memory: said once
                    out.add(onlyUnderTheTool(outOfMemory, passedWithout));
                    said = true;
                }
            } else if (death) {
                out.add(Reason.unstable(
                        "sanitizer-only-death",
                        r.message() + "; but the job died only under compute-sanitizer: " + passedWithout
                                + " and the tool recorded no error, so it is not a bug found. What made it die under"
                                + " the tool is not known to the gate (seen before: torch.compile's CUDA graph trees,"
                                + " a custom allocator, the tool's own crash; see the sanitizer run's stderr.log); the"
                                + " tool checked the job only until it died"));
            } else {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * The run of {@code pastTheirStop} a death reason is about, or null: its message starts with the run's name
     * ("sanitizer-memcheck", the out-of-memory reason) or its tool's ("memcheck:", the tool's own death reasons).
     */
    private static String pastItsStop(Reason r, Set<String> pastTheirStop) {
        return pastTheirStop.stream()
                .filter(name -> r.message().startsWith(name)
                        || r.message().startsWith(name.substring(name.indexOf('-') + 1) + ":"))
                .findFirst()
                .orElse(null);
    }

    /** A death under the tool after the coverage stop (issue #49): what was to be checked had been. */
    private static Reason afterTheStop(String name, String outOfMemory, Reason death, String passedWithout) {
        return Reason.info(
                "sanitizer-end-past-stop",
                name + " "
                        + (outOfMemory != null
                                ? "ran out of GPU memory (its stderr: " + outOfMemory.strip() + ")"
                                : "died (" + death.message() + ")")
                        + " only under compute-sanitizer (" + passedWithout + "), after it had passed its coverage"
                        + " stop: the tool recorded no memory-access error until then, and what came after the stop"
                        + " was not to be checked in coverage kernels, so this is no finding");
    }

    private static Reason onlyUnderTheTool(String oomLine, String passedWithout) {
        return Reason.unstable(
                "sanitizer-only-oom",
                "the sanitizer run ran out of GPU memory (its stderr: " + oomLine.strip() + "), only under"
                        + " compute-sanitizer: " + passedWithout + " without running out. The"
                        + " tool recorded no memory-access error until then and did not check the job past it. Under"
                        + " the tool PyTorch's memory can grow step by step where it does not alone (on nanoGPT 1.87"
                        + " GiB a step, held by the Python frames of finished calls: docs/how-it-works.md, 'Out of"
                        + " memory under the tool'): give the tool a"
                        + " shorter run (sanitizerCommand, CLI --sanitizer-command, with fewer steps) that ends"
                        + " before the card fills; a launch window (--launch-count) does not: it lets the job run"
                        + " faster under the tool and fill the card sooner (pytorch/examples word_language_model"
                        + " within a minute on an H100)");
    }

    /** "the blocking and regression runs passed", or null unless every run without the tool passed. */
    private static String passedWithoutTheTool(RunRecord record) {
        if (record == null || record.execution() == null || record.execution().phases() == null) {
            return null;
        }
        List<String> passed = new ArrayList<>();
        for (PhaseJson p : record.execution().phases()) {
            if (p == null || p.status() == null) {
                return null;
            }
            Phase phase = PhaseReasons.phaseOf(p);
            if (phase == null || phase == Phase.SANITIZER) {
                continue;
            }
            boolean cut = phase == Phase.BLOCKING && BlockingPhase.wasCut(p.status(), p.note());
            if (!PASSED.contains(p.status()) && !cut) {
                return null;
            }
            if (!cut) {
                passed.add(p.name());
            }
        }
        if (passed.isEmpty()) {
            return null;
        }
        return "the " + String.join(" and ", passed) + " run" + (passed.size() > 1 ? "s" : "") + " passed";
    }
}
