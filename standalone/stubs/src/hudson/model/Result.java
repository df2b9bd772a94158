package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import java.io.Serializable;

public final class Result implements Serializable {
    public static final Result SUCCESS = new Result("SUCCESS", 0);
    public static final Result UNSTABLE = new Result("UNSTABLE", 1);
    public static final Result FAILURE = new Result("FAILURE", 2);
    public static final Result NOT_BUILT = new Result("NOT_BUILT", 3);
    public static final Result ABORTED = new Result("ABORTED", 4);

    private final String name;
    public final int ordinal;

    private Result(String name, int ordinal) {
        this.name = name;
        this.ordinal = ordinal;
    }

    public boolean isWorseThan(Result that) {
        return ordinal > that.ordinal;
    }

    public boolean isBetterOrEqualTo(Result that) {
        return ordinal <= that.ordinal;
    }

    @Override
    public String toString() {
        return name;
    }
}
