package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.findings.KernelNames;
import io.jenkins.plugins.gpusanitizer.engine.gate.Gate;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compares a report with a reference report (the target branch's last build, the previous build):
 * each defect becomes {@code new} or {@code outstanding}, and the reference's defects that are gone
 * are listed as {@code fixed}. Defects are matched by fingerprint, then — so that a line shift in
 * unrelated code does not turn one bug into a "new" and a "fixed" one — by the same defect without
 * host line numbers (tool, kind, message, kernel, file and function of the user frame, device file),
 * taking each reference defect at most once. The device line stays part of the defect: a kernel's
 * faulting statement does not move when host code does, so another device line is another bug (a
 * fix beside a new one), unless kernel and launch share a file and both lines moved by the same
 * amount (code added above both). With {@code newOnly}, outstanding defects no longer
 * decide the verdict: their reasons become information and the verdict is recomputed.
 */
public final class ReferenceComparison {
    public static final String NEW = "new";
    public static final String OUTSTANDING = "outstanding";

    private ReferenceComparison() {}

    public static Report apply(Report current, Report reference, String referenceName, boolean newOnly) {
        List<Report.DefectJson> refs =
                reference.defects().stream().filter(d -> !d.suppressed()).toList();
        Set<String> refIds = new HashSet<>();
        refs.forEach(d -> refIds.add(d.id()));
        Map<String, List<Report.DefectJson>> refByLoose = new HashMap<>();
        refs.forEach(d ->
                refByLoose.computeIfAbsent(looseKey(d), k -> new ArrayList<>()).add(d));
        Set<String> matchedRefs = new HashSet<>();
        Map<String, String> status = new HashMap<>();
        // exact matches first, so a loose match never takes a defect that matches exactly elsewhere
        for (Report.DefectJson d : current.defects()) {
            if (refIds.contains(d.id())) {
                status.put(d.id(), OUTSTANDING);
                matchedRefs.add(d.id());
            }
        }
        for (Report.DefectJson d : current.defects()) {
            if (status.containsKey(d.id())) {
                continue;
            }
            Report.DefectJson moved = refByLoose.getOrDefault(looseKey(d), List.of()).stream()
                    .filter(r -> !matchedRefs.contains(r.id()) && sameDeviceLine(r, d))
                    .findFirst()
                    .orElse(null);
            if (moved != null) {
                matchedRefs.add(moved.id());
                status.put(d.id(), OUTSTANDING);
            } else {
                status.put(d.id(), NEW);
            }
        }
        List<Report.DefectJson> defects =
                current.defects().stream().map(d -> with(d, status.get(d.id()))).toList();
        List<Report.DefectJson> fixed =
                refs.stream().filter(r -> !matchedRefs.contains(r.id())).toList();
        List<Report.ReasonJson> reasons = new ArrayList<>();
        for (Report.ReasonJson r : current.reasons()) {
            if (newOnly
                    && r.defect() != null
                    && OUTSTANDING.equals(status.get(r.defect()))
                    && (r.level().equals("fail") || r.level().equals("unstable"))) {
                reasons.add(new Report.ReasonJson(
                        "info", "outstanding", "outstanding, also in the reference: " + r.message(), r.defect()));
            } else {
                reasons.add(r);
            }
        }
        long newCount = defects.stream()
                .filter(d -> !d.suppressed() && NEW.equals(d.status()))
                .count();
        reasons.add(new Report.ReasonJson(
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

    static String looseKey(Report.DefectJson d) {
        return String.join(
                "|",
                d.tool(),
                d.kind(),
                String.valueOf(d.message()),
                String.valueOf(KernelNames.simple(d.kernel())),
                d.hostLocation() == null
                        ? ""
                        : base(d.hostLocation().file()) + ":" + d.hostLocation().function(),
                d.deviceLocation() == null ? "" : base(d.deviceLocation().file()));
    }

    /**
     * Whether two defects of one loose key fault at the same device statement: both without a device
     * line (nothing to tell them apart), the same line, or, kernel and launch in one file, a device
     * line moved by exactly as much as the host line.
     */
    static boolean sameDeviceLine(Report.DefectJson ref, Report.DefectJson now) {
        Report.LocationJson refDevice = ref.deviceLocation();
        Report.LocationJson nowDevice = now.deviceLocation();
        if (refDevice == null || nowDevice == null) {
            return refDevice == null && nowDevice == null;
        }
        if (refDevice.line() == nowDevice.line()) {
            return true;
        }
        Report.LocationJson refHost = ref.hostLocation();
        Report.LocationJson nowHost = now.hostLocation();
        return refHost != null
                && nowHost != null
                && base(refDevice.file()).equals(base(refHost.file()))
                && nowDevice.line() - refDevice.line() == nowHost.line() - refHost.line();
    }

    private static String base(String path) {
        if (path == null) {
            return "";
        }
        int slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
        return slash < 0 ? path : path.substring(slash + 1);
    }

    private static Report.DefectJson with(Report.DefectJson d, String status) {
        return new Report.DefectJson(
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

    private static Verdict verdictOf(List<Report.ReasonJson> reasons) {
        return Gate.verdictOf(reasons.stream()
                .map(r -> new Reason(
                        Reason.Level.valueOf(r.level().toUpperCase(java.util.Locale.ROOT)), r.code(), r.message()))
                .toList());
    }
}
