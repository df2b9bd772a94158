package io.jenkins.plugins.gpusanitizer.engine.run.environment;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The card itself in an error state, in nvidia-smi's own words (issue #48, 7: after a memcheck run timed out and was
 * killed, nvidia-smi showed the card in {@code ERR!} and later jobs found no CUDA). nvidia-smi prints {@code ERR!} in
 * a field of its table it could not read from the GPU, and "Unable to determine the device handle for GPU
 * 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU" (or "...: Unknown Error") when the driver lost the
 * card (public reports: JosephKJ/OWOD#81, marian-nmt/marian#251, NVIDIA/open-gpu-kernel-modules#387). Either way the
 * agent wants taking out of service, not the job blaming.
 */
public final class CardFault {
    /** What every sentence about it starts with, so the report's readers can tell it apart. */
    public static final String MARK = "the GPU itself is in an error state";

    private static final Pattern LOST =
            Pattern.compile("(?m)^.*(Unable to determine the device handle|GPU is lost).*$");
    private static final Pattern GPU_ROW = Pattern.compile("^\\|\\s+(\\d+)\\s+\\S");

    private CardFault() {}

    /** nvidia-smi's own words for a card in an error state in its table output, or null when it shows none. */
    public static String in(String nvidiaSmiTable) {
        if (nvidiaSmiTable == null) {
            return null;
        }
        Matcher lost = LOST.matcher(nvidiaSmiTable);
        if (lost.find()) {
            return "nvidia-smi says \"" + lost.group().trim() + "\"";
        }
        String gpu = null;
        for (String line : nvidiaSmiTable.split("\n")) {
            Matcher row = GPU_ROW.matcher(line);
            if (row.find()) {
                gpu = row.group(1);
            }
            if (line.startsWith("|") && line.contains("ERR!")) {
                return "nvidia-smi shows ERR! for " + (gpu == null ? "a GPU" : "GPU " + gpu) + " in its table (\""
                        + line.trim().replaceAll("\\s{2,}", " ") + "\")";
            }
        }
        return null;
    }

    /** The sentence the report says: what the card shows, and what to do about the agent. */
    public static String sentence(String words) {
        return MARK + ": " + words + ". Take this agent out of service until the GPU is reset or the machine"
                + " rebooted; nothing this job did on it can be judged";
    }
}
