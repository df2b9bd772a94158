package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * initcheck, racecheck and synccheck report known noise in kernels that vendor libraries launch
 * (cuDNN's persistent LSTM kernels read workspace they never initialised: 102,400 initcheck errors on
 * a clean run). memcheck access errors there are not suppressed: they usually mean the caller passed
 * bad arguments, and are labelled "in vendor library" instead.
 */
public final class VendorNoiseRule implements SuppressionRule {
    public static final String ID = "vendor-library-noise";
    private final Set<Tool> tools;

    public VendorNoiseRule() {
        this(EnumSet.of(Tool.INITCHECK, Tool.RACECHECK, Tool.SYNCCHECK));
    }

    public VendorNoiseRule(Set<Tool> tools) {
        this.tools = Set.copyOf(tools);
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String reason() {
        return "kernel launched from inside a vendor library; "
                + tools.stream().map(Tool::id).sorted().toList()
                + " report known noise there (e.g. cuDNN kernels reading workspace they never initialised)";
    }

    @Override
    public boolean matches(Defect d, List<Defect> sameRun) {
        return d.inVendorLibrary() && tools.contains(d.tool());
    }
}
