package io.jenkins.plugins.gpusanitizer.engine.run.environment;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
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

    /**
     * The fields of {@code nvidia-smi -q} that say the card needs service, in nvidia-smi's words ("GPU Recovery Action:
     * Reset", "Remapped Rows / Pending: Yes", "ECC Errors / Volatile / DRAM Uncorrectable: 3"), or null when none does.
     * On the H200 of corpus/h200/env/nvidia-smi-q.txt every one reads None, No, N/A or 0.
     */
    public static String inQuery(String query) {
        if (query == null) {
            return null;
        }
        List<String> found = new ArrayList<>();
        Deque<String> sections = new ArrayDeque<>();
        Deque<Integer> depths = new ArrayDeque<>();
        for (String line : query.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            int depth = line.length() - line.stripLeading().length();
            while (!depths.isEmpty() && depths.peek() >= depth) {
                depths.pop();
                sections.pop();
            }
            int colon = line.indexOf(" : ");
            if (colon < 0) {
                sections.push(line.strip());
                depths.push(depth);
                continue;
            }
            String field = line.substring(0, colon).strip();
            String value = line.substring(colon + 3).strip();
            String section = String.join(" / ", reversed(sections));
            if (needsService(section, field, value)) {
                found.add((section.isEmpty() ? "" : section + " / ") + field + ": " + value);
            }
        }
        return found.isEmpty() ? null : "nvidia-smi -q shows " + String.join("; ", found);
    }

    private static boolean needsService(String section, String field, String value) {
        boolean yes = value.equalsIgnoreCase("Yes");
        return switch (field) {
            case "GPU Recovery Action" -> !value.equalsIgnoreCase("None") && !value.equalsIgnoreCase("N/A");
            case "Pending Page Blacklist",
                    "Remapping Failure Occurred",
                    "Channel Repair Pending",
                    "TPC Repair Pending",
                    "Unrepairable Memory" -> yes;
            case "Pending" -> section.endsWith("Remapped Rows") && yes;
            default ->
                section.contains("ECC Errors / Volatile")
                        && field.contains("Uncorrectable")
                        && value.matches("[1-9]\\d*");
        };
    }

    private static List<String> reversed(Deque<String> stack) {
        List<String> out = new ArrayList<>(stack);
        Collections.reverse(out);
        return out.subList(Math.min(1, out.size()), out.size()); // without the "GPU 00000000:..." heading
    }

    /** The sentence the report says: what the card shows, and what to do about the agent. */
    public static String sentence(String words) {
        return MARK + ": " + words + ". Take this agent out of service until the GPU is reset or the machine"
                + " rebooted; nothing this job did on it can be judged";
    }
}
