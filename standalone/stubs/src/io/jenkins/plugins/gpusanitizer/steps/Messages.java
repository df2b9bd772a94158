package io.jenkins.plugins.gpusanitizer.steps;

// Compile-only stand-in for the class localizer-maven-plugin 1.31 generates from Messages.properties in the
// real plugin build (the plugin's dependencies are not all on Maven Central). MessagesStubTest keeps it in
// step with Messages.properties: one static method per key, one parameter per {n}. Never packaged.
public final class Messages {
    private Messages() {}

    public static String GpuSanitizeStep_DisplayName() {
        return "GpuSanitizeStep.DisplayName";
    }

    public static String GpuSanitizeStep_CommandRequired() {
        return "GpuSanitizeStep.CommandRequired";
    }

    public static String GpuSanitizeStep_UnknownTool(Object arg0) {
        return "GpuSanitizeStep.UnknownTool " + arg0;
    }

    public static String GpuSanitizeStep_RegexWithoutGroup() {
        return "GpuSanitizeStep.RegexWithoutGroup";
    }

    public static String GpuSanitizeStep_BadAction(Object arg0) {
        return "GpuSanitizeStep.BadAction " + arg0;
    }

    public static String SanitizerTool_DisplayName() {
        return "SanitizerTool.DisplayName";
    }

    public static String SanitizerTool_DefaultAction() {
        return "SanitizerTool.DefaultAction";
    }

    public static String Suppression_DisplayName() {
        return "Suppression.DisplayName";
    }

    public static String Suppression_Any() {
        return "Suppression.Any";
    }

    public static String Suppression_NoSemicolon() {
        return "Suppression.NoSemicolon";
    }
}
