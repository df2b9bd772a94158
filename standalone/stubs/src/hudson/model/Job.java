package hudson.model;

// Compile-only signature stub of hudson.model.Job: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/Job.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import hudson.ExtensionPoint;

public abstract class Job<JobT extends Job<JobT, RunT>, RunT extends Run<JobT, RunT>> extends AbstractItem
        implements ExtensionPoint {
    protected Job(ItemGroup parent, String name) {
        super(parent, name);
    }

    public RunT getLastBuild() {
        throw new RuntimeException("Stub!");
    }

    public RunT getLastCompletedBuild() {
        throw new RuntimeException("Stub!");
    }
}
