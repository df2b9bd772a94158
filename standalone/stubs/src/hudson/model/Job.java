package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

public abstract class Job<JobT extends Job<JobT, RunT>, RunT extends Run<JobT, RunT>> extends Actionable
        implements Item {
    public RunT getLastBuild() {
        throw new UnsupportedOperationException();
    }

    public RunT getLastCompletedBuild() {
        throw new UnsupportedOperationException();
    }

    public String getUrl() {
        throw new UnsupportedOperationException();
    }

    public ItemGroup<? extends Item> getParent() {
        throw new UnsupportedOperationException();
    }
}
