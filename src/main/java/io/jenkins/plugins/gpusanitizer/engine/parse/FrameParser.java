package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the text after {@code Host Frame:}. Formats differ across releases, so frames are read by
 * their content, never by position:
 * <ul>
 * <li>2025.x native: {@code func(args) in file.cpp:8369 [0xda7f] in module.so} (file:line optional, func may be empty)</li>
 * <li>2025.x Python (appended by the tool): {@code buggy_scale in train_lstm.py:32}; a path may hold blanks</li>
 * <li>cuda-memcheck era: {@code /lib64/libcuda.so.1 (cuLaunchKernel + 0x346) [0x297db6]}</li>
 * <li>older two-line form: {@code [0x30b492]} with {@code in module} on the next line</li>
 * </ul>
 */
public final class FrameParser {
    private static final Pattern OLD_MODULE_FIRST = Pattern.compile(
            "^(?<module>/\\S+) \\((?<func>.*?)(?: \\+ 0x[0-9a-fA-F]+)?\\) \\[(?<pc>0x[0-9a-fA-F]+)\\]$");
    private static final Pattern BARE_PC = Pattern.compile("^\\[(0x[0-9a-fA-F]+)\\]$");

    private FrameParser() {}

    /**
     * The frame, or null for the first half of the two-line form (see {@link #isBarePc}). The
     * common forms are cut by hand (millions of frames per log: a regex with lazy groups over
     * 250-character C++ signatures was the parser's hot spot); the rare old forms use regexes.
     */
    public static Frame parse(String text) {
        String s = text.trim();
        int pcEnd = s.lastIndexOf("] in ");
        if (pcEnd > 0) {
            int pcStart = s.lastIndexOf('[', pcEnd);
            if (pcStart >= 0 && s.startsWith("[0x", pcStart) && (pcStart == 0 || s.charAt(pcStart - 1) == ' ')) {
                String module = s.substring(pcEnd + 5).trim();
                String func = pcStart == 0 ? "" : s.substring(0, pcStart - 1);
                String file = null;
                int line = 0;
                int in = func.lastIndexOf(" in ");
                if (in >= 0) {
                    int colon = func.lastIndexOf(':');
                    if (colon > in + 4
                            && colon < func.length() - 1
                            && allDigits(func, colon + 1)
                            // a file with blanks only as an absolute path ("/home/ci/my jobs/ext.cpp")
                            && (func.indexOf(' ', in + 4) < 0 || func.charAt(in + 4) == '/')) {
                        file = func.substring(in + 4, colon);
                        line = parseInt(func.substring(colon + 1));
                        func = func.substring(0, in);
                    }
                }
                return Frame.nativeFrame(func, file, line, module);
            }
        }
        if (s.indexOf('[') >= 0) {
            Matcher m = OLD_MODULE_FIRST.matcher(s);
            if (m.matches()) {
                return Frame.nativeFrame(m.group("func"), null, 0, m.group("module"));
            }
            if (BARE_PC.matcher(s).matches()) {
                return null;
            }
        }
        // a Python frame: "function in file:line"; the file may hold blanks ("/home/ci/my jobs/x.py") when the
        // function (an identifier, <module>) holds none
        int colon = s.lastIndexOf(':');
        int in = s.lastIndexOf(" in ");
        if (in > 0 && colon > in + 4 && s.substring(in + 4, colon).indexOf(' ') >= 0) {
            int first = s.indexOf(" in ");
            in = s.lastIndexOf(' ', first - 1) < 0 ? first : -1;
        }
        if (in > 0 && colon > in + 4 && colon < s.length() - 1 && allDigits(s, colon + 1)) {
            String file = s.substring(in + 4, colon);
            if (file.endsWith(".py") || file.endsWith(".pyx") || file.endsWith(".pyi") || file.endsWith(".ipynb")) {
                return Frame.python(s.substring(0, in), file, parseInt(s.substring(colon + 1)));
            }
        }
        return Frame.nativeFrame(s, null, 0, null);
    }

    private static boolean allDigits(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return from < s.length();
    }

    static boolean isBarePc(String text) {
        return BARE_PC.matcher(text.trim()).matches();
    }

    public static int parseInt(String digits) {
        try {
            return Integer.parseInt(digits.replace(",", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public static long parseLong(String digits) {
        try {
            return Long.parseLong(digits.replace(",", ""));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
