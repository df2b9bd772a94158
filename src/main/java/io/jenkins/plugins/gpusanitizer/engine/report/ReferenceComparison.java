package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.findings.Fingerprint;
import io.jenkins.plugins.gpusanitizer.engine.findings.KernelNames;
import io.jenkins.plugins.gpusanitizer.engine.gate.Gate;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Compares a report with a reference report (the target branch's last build, the previous build):
 * each defect becomes {@code new} or {@code outstanding}, and the reference's defects that are gone
 * are listed as {@code fixed}. The CLI's {@code --reference}, the runner and the Jenkins reference
 * build all compare here.
 *
 * <p>A defect is outstanding only when it is the same defect as one of the reference's: the same
 * fingerprint, or — so that a line shift in unrelated host code does not turn one bug into a "new" and
 * a "fixed" one — the same tool, kernel, kind and access (the message: read or write, memory space,
 * size) at the same statement: the same device line (file base name and line) launched from the same
 * host function where the kernel has line info; without a device line, the same first user host frame
 * (file, line, function), which is then the only thing that tells two faults of one kernel apart.
 * Anything else is new: another line of the same kernel or function (a fix beside a new fault, or code
 * added above both — the report cannot tell them apart, so the gate does not guess), another access
 * kind at the same line, or a reference written by an older report that lacks one of these fields. A new
 * defect whose kernel the reference also had gets an {@code info} reason ({@link #NEW_REASON}) saying
 * what differs. Each reference defect is taken at most once. With {@code newOnly}, outstanding defects no
 * longer decide the verdict: their reasons become information and the verdict is recomputed.
 */
public final class ReferenceComparison {
    public static final String NEW = "new";
    public static final String OUTSTANDING = "outstanding";
    /** The reason code of a new defect's explanation: which reference defect it is not, and why. */
    public static final String NEW_REASON = "reference-new";

    private ReferenceComparison() {}

    /** With --fail-on new, an outstanding defect's failing reason becomes information; the others stay. */
    private static List<ReasonJson> outstandingDemoted(
            List<ReasonJson> current, Map<String, String> status, boolean newOnly) {
        List<ReasonJson> reasons = new ArrayList<>();
        for (ReasonJson r : current) {
            if (newOnly
                    && r.defect() != null
                    && OUTSTANDING.equals(status.get(r.defect()))
                    && (r.level().equals("fail") || r.level().equals("unstable"))) {
                reasons.add(new ReasonJson(
                        "info", "outstanding", "outstanding, also in the reference: " + r.message(), r.defect()));
            } else {
                reasons.add(r);
            }
        }
        return reasons;
    }

    public static Report apply(Report current, Report reference, String referenceName, boolean newOnly) {
        List<DefectJson> refs =
                reference.defects().stream().filter(d -> !d.suppressed()).toList();
        Map<String, DefectJson> refById = new HashMap<>();
        refs.forEach(d -> refById.putIfAbsent(d.id(), d));
        // what a reference defect is compared by, computed once: a report holds up to 2000 defects
        Map<DefectJson, Keys> refKeys = new IdentityHashMap<>();
        Map<String, List<DefectJson>> refsByAccess = new HashMap<>();
        for (DefectJson r : refs) {
            Keys k = Keys.of(r);
            refKeys.put(r, k);
            refsByAccess.computeIfAbsent(k.access(), x -> new ArrayList<>()).add(r);
        }
        Set<DefectJson> matchedRefs = Collections.newSetFromMap(new IdentityHashMap<>());
        Map<String, String> status = new HashMap<>();
        // the same fingerprint first, so a field-by-field match never takes a defect that matches exactly elsewhere
        for (DefectJson d : current.defects()) {
            DefectJson same = d.id() == null ? null : refById.get(d.id());
            if (same != null && !matchedRefs.contains(same)) {
                status.put(d.id(), OUTSTANDING);
                matchedRefs.add(same);
            }
        }
        List<ReasonJson> explained = new ArrayList<>();
        for (DefectJson d : current.defects()) {
            if (status.containsKey(d.id())) {
                continue;
            }
            Keys keys = Keys.of(d);
            DefectJson same = refsByAccess.getOrDefault(keys.access(), List.of()).stream()
                    .filter(r -> !matchedRefs.contains(r) && difference(r, d) == null)
                    .findFirst()
                    .orElse(null);
            if (same != null) {
                matchedRefs.add(same);
                status.put(d.id(), OUTSTANDING);
                continue;
            }
            status.put(d.id(), NEW);
            if (!d.suppressed()) {
                DefectJson nearest = nearest(refs, refKeys, matchedRefs, keys);
                if (nearest != null) {
                    explained.add(new ReasonJson(
                            "info",
                            NEW_REASON,
                            "new: " + describe(d) + " is not the reference's " + describe(nearest) + ": "
                                    + difference(nearest, d),
                            d.id()));
                }
            }
        }
        List<DefectJson> defects =
                current.defects().stream().map(d -> with(d, status.get(d.id()))).toList();
        List<DefectJson> fixed =
                refs.stream().filter(r -> !matchedRefs.contains(r)).toList();
        List<ReasonJson> reasons = outstandingDemoted(current.reasons(), status, newOnly);
        reasons.addAll(explained);
        // the reference's runs say what this job's runs do: a run that did none of it now checked none of it
        reasons.addAll(ReferenceWork.reasons(current, reference, referenceName));
        reasons.addAll(ReferenceKernels.reasons(current, reference, referenceName));
        long newCount = defects.stream()
                .filter(d -> !d.suppressed() && NEW.equals(d.status()))
                .count();
        reasons.add(new ReasonJson(
                "info",
                "reference",
                "against " + referenceName + ": " + newCount + " new, "
                        + (defects.stream().filter(d -> !d.suppressed()).count() - newCount) + " outstanding, "
                        + fixed.size() + " fixed"));
        Verdict verdict = verdictOf(reasons);
        return current.copy()
                .verdict(verdict)
                .reasons(reasons)
                .defects(defects)
                .reference(referenceName)
                .fixed(fixed)
                .build();
    }

    /**
     * Null when {@code now} is the same defect as the reference's {@code ref} (see the class comment), else
     * what differs, in words. A field the reference lacks (a report written by an older version) is named,
     * never guessed: the defect is then not the same one.
     */
    static String difference(DefectJson ref, DefectJson now) {
        String missing = missing("tool", ref.tool(), now.tool());
        missing = missing != null ? missing : missing("kind", ref.kind(), now.kind());
        missing = missing != null ? missing : missing("message", ref.message(), now.message());
        missing = missing != null ? missing : missing("kernel", ref.kernel(), now.kernel());
        if (missing != null) {
            return missing;
        }
        if (!Objects.equals(ref.tool(), now.tool())) {
            return "another tool (" + ref.tool() + " there)";
        }
        if (!Objects.equals(KernelNames.simple(ref.kernel()), KernelNames.simple(now.kernel()))) {
            return "another kernel (" + KernelNames.simple(ref.kernel()) + " there)";
        }
        if (!Objects.equals(ref.kind(), now.kind())) {
            return "another kind of fault (" + ref.kind() + " there, " + now.kind() + " here)";
        }
        if (!Fingerprint.normalise(ref.message()).equals(Fingerprint.normalise(now.message()))) {
            return "another access (\"" + ref.message() + "\" there, \"" + now.message() + "\" here)";
        }
        LocationJson refDevice = ref.deviceLocation();
        LocationJson nowDevice = now.deviceLocation();
        LocationJson refHost = ref.hostLocation();
        LocationJson nowHost = now.hostLocation();
        if (nowDevice != null) {
            if (refDevice == null) {
                return "the reference's defect has no device line (a report written by an older version, or a build"
                        + " without line info), so it cannot be told to be the same statement";
            }
            if (!sameLine(refDevice, nowDevice)) {
                return "another device line (" + at(refDevice) + " there, " + at(nowDevice) + " here)";
            }
            if (nowHost != null && refHost == null) {
                return "the reference's defect has no host frame (a report written by an older version)";
            }
            if (nowHost != null && !sameFunction(refHost, nowHost)) {
                return "launched from another function (" + function(refHost) + " there, " + function(nowHost)
                        + " here)";
            }
            return null;
        }
        if (refDevice != null) {
            return "the reference's defect has a device line (" + at(refDevice) + "), this one none";
        }
        if (nowHost != null) {
            if (refHost == null) {
                return "the reference's defect has no host frame (a report written by an older version)";
            }
            if (!sameLine(refHost, nowHost) || !sameFunction(refHost, nowHost)) {
                return "another host line (" + at(refHost) + " there, " + at(nowHost) + " here) and no device line"
                        + " to tell them apart: another statement";
            }
            return null;
        }
        if (refHost != null) {
            return "the reference's defect has a host frame (" + at(refHost) + "), this one none";
        }
        return Objects.equals(ref.id(), now.id())
                ? null
                : "no device line or host frame on either side, and the fingerprints differ";
    }

    private static String missing(String field, String ref, String now) {
        return ref == null && now != null
                ? "the reference's defect has no " + field
                        + " (a report written by an older version), so it cannot be told to be the same defect"
                : null;
    }

    /** A defect's tool, kernel (simple name), kind and message (normalised) as the comparison sees them. */
    private record Keys(String tool, String kernel, String kind, String message) {
        static Keys of(DefectJson d) {
            return new Keys(d.tool(), KernelNames.simple(d.kernel()), d.kind(), Fingerprint.normalise(d.message()));
        }

        /** Equal for defects {@link #difference} may find the same: the same tool, kernel, kind and access. */
        String access() {
            return tool + "\u0000" + kernel + "\u0000" + kind + "\u0000" + message;
        }
    }

    /**
     * The reference defect a new one is most likely taken for: one of the same tool and kernel (or, without a
     * kernel, the same tool and kind), not matched yet before matched, the same kind and access first.
     */
    private static DefectJson nearest(
            List<DefectJson> refs, Map<DefectJson, Keys> refKeys, Set<DefectJson> matched, Keys now) {
        DefectJson best = null;
        int bestScore = -1;
        for (DefectJson r : refs) {
            Keys ref = refKeys.get(r);
            boolean related = (ref.tool() == null || ref.tool().equals(now.tool()))
                    && (now.kernel() != null
                            ? ref.kernel() == null || ref.kernel().equals(now.kernel())
                            : ref.kernel() == null
                                    && (ref.kind() == null || ref.kind().equals(now.kind())));
            if (!related) {
                continue;
            }
            int score = (matched.contains(r) ? 0 : 4)
                    + (Objects.equals(ref.kind(), now.kind()) ? 2 : 0)
                    + (Objects.equals(ref.message(), now.message()) ? 1 : 0);
            if (score > bestScore) {
                best = r;
                bestScore = score;
            }
        }
        return best;
    }

    private static String describe(DefectJson d) {
        String what = d.kernel() != null ? KernelNames.simple(d.kernel()) : d.tool();
        LocationJson where = d.deviceLocation() != null ? d.deviceLocation() : d.hostLocation();
        return what + " " + d.kind() + (where == null ? "" : " at " + at(where));
    }

    private static boolean sameLine(LocationJson a, LocationJson b) {
        return a.line() == b.line() && base(a.file()).equals(base(b.file()));
    }

    /** The same file (base name) and, where both name it, the same function. */
    private static boolean sameFunction(LocationJson a, LocationJson b) {
        return base(a.file()).equals(base(b.file()))
                && (a.function() == null || b.function() == null || a.function().equals(b.function()));
    }

    private static String at(LocationJson l) {
        return base(l.file()) + ":" + l.line();
    }

    private static String function(LocationJson l) {
        return base(l.file()) + (l.function() == null ? "" : " " + l.function());
    }

    private static String base(String path) {
        if (path == null) {
            return "";
        }
        int slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
        return slash < 0 ? path : path.substring(slash + 1);
    }

    private static DefectJson with(DefectJson d, String status) {
        return new DefectJson(
                d.id(),
                d.tool(),
                d.kind(),
                d.severity(),
                d.message(),
                d.kernel(),
                d.records(),
                d.suppressed(),
                d.suppressedBy(),
                d.inVendorLibrary(),
                d.vendorModule(),
                d.launcher(),
                d.deviceLocation(),
                d.hostLocation(),
                d.examples(),
                d.detail(),
                d.buffer(),
                d.hostStack(),
                status);
    }

    private static Verdict verdictOf(List<ReasonJson> reasons) {
        return Gate.verdictOf(reasons.stream()
                .map(r -> new Reason(
                        Reason.Level.valueOf(r.level().toUpperCase(java.util.Locale.ROOT)), r.code(), r.message()))
                .toList());
    }
}
