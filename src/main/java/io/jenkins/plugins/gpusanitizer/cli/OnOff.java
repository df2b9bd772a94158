package io.jenkins.plugins.gpusanitizer.cli;

import edu.umd.cs.findbugs.annotations.SuppressFBWarnings;
import java.util.Locale;
import picocli.CommandLine;

/** Parses on/off/yes/no/true/false options; null stays null (unknown). */
final class OnOff {
    private OnOff() {}

    @SuppressFBWarnings(
            value = "NP_BOOLEAN_RETURN_NULL",
            justification = "three states on purpose: null is an option not given (unknown), which the report"
                    + " keeps apart from off; the one caller passes it on as such")
    static Boolean parse(CommandLine cl, String option, String value) {
        if (value == null) {
            return null;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "on", "yes", "true", "1" -> Boolean.TRUE;
            case "off", "no", "false", "0" -> Boolean.FALSE;
            default ->
                throw new CommandLine.ParameterException(cl, option + ": expected on or off, got '" + value + "'");
        };
    }
}
