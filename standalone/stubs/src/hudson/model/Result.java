package hudson.model;

// Compile-only signature stub of hudson.model.Result: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/Result.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the constants and comparisons, which behave as the real ones (core's private constructor also
// takes a BallColor). Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import java.io.Serializable;

public final class Result implements Serializable {
    private static final long serialVersionUID = 1L;

    public static final @NonNull Result SUCCESS = new Result("SUCCESS", 0);
    public static final @NonNull Result UNSTABLE = new Result("UNSTABLE", 1);
    public static final @NonNull Result FAILURE = new Result("FAILURE", 2);
    public static final @NonNull Result NOT_BUILT = new Result("NOT_BUILT", 3);
    public static final @NonNull Result ABORTED = new Result("ABORTED", 4);

    private final String name;
    public final int ordinal;

    private Result(@NonNull String name, int ordinal) {
        this.name = name;
        this.ordinal = ordinal;
    }

    public boolean isWorseThan(@NonNull Result that) {
        return this.ordinal > that.ordinal;
    }

    public boolean isBetterOrEqualTo(@NonNull Result that) {
        return this.ordinal <= that.ordinal;
    }

    @Override
    public @NonNull String toString() {
        return name;
    }
}
