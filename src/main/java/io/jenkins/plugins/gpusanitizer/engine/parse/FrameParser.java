package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the text after {@code Host Frame:}. Formats differ across releases, so frames are read by
 * their content, never by position:
 * <ul>
 * <li>2025.x native: {@code func(args) in file.cpp:8369 [0xda7f] in module.so} (file:line optional, func may be empty)</li>
 * <li>2025.x Python (appended by the tool): {@code buggy_scale in train_lstm.py:32}</li>
 * <li>cuda-memcheck era: {@code /lib64/libcuda.so.1 (cuLaunchKernel + 0x346) [0x297db6]}</li>
 * <li>older two-line form: {@code [0x30b492]} with {@code in module} on the next line</li>
 * </ul>
 */
final class FrameParser {
    private static final Pattern NATIVE = Pattern.compile(
            "^(?:(?<func>.*?)(?: in (?<file>[^\\s\\[]+):(?<line>\\d+))? )?\\[(?<pc>0x[0-9a-fA-F]+)\\] in (?<module>\\S.*)$");
    private static final Pattern PYTHON = Pattern.compile(
            "^(?<func>\\S.*?) in (?<file>[^\\s\\[\\]]+\\.(?:py|pyx|pyi|ipynb)):(?<line>\\d+)$");
    private static final Pattern OLD_MODULE_FIRST = Pattern.compile(
            "^(?<module>/\\S+) \\((?<func>.*?)(?: \\+ 0x[0-9a-fA-F]+)?\\) \\[(?<pc>0x[0-9a-fA-F]+)\\]$");
    private static final Pattern BARE_PC = Pattern.compile("^\\[(0x[0-9a-fA-F]+)\\]$");

    private FrameParser() {
    }

    /** The frame, or null for the first half of the two-line form (see {@link #isBarePc}). */
    static Frame parse(String text) {
        String s = text.trim();
        if (s.indexOf('[') >= 0) {
            Matcher m = NATIVE.matcher(s);
            if (m.matches()) {
                String line = m.group("line");
                return Frame.nativeFrame(m.group("func"), m.group("file"),
                        line == null ? 0 : parseInt(line), m.group("module").trim());
            }
            m = OLD_MODULE_FIRST.matcher(s);
            if (m.matches()) {
                return Frame.nativeFrame(m.group("func"), null, 0, m.group("module"));
            }
            if (BARE_PC.matcher(s).matches()) {
                return null;
            }
        }
        Matcher m = PYTHON.matcher(s);
        if (m.matches()) {
            return Frame.python(m.group("func"), m.group("file"), parseInt(m.group("line")));
        }
        return Frame.nativeFrame(s, null, 0, null);
    }

    static boolean isBarePc(String text) {
        return BARE_PC.matcher(text.trim()).matches();
    }

    static int parseInt(String digits) {
        try {
            return Integer.parseInt(digits.replace(",", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static long parseLong(String digits) {
        try {
            return Long.parseLong(digits.replace(",", ""));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
