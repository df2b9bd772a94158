package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import java.io.File;
import java.io.IOException;

public abstract class Run<JobT extends Job<JobT, RunT>, RunT extends Run<JobT, RunT>> extends Actionable {
    public Result getResult() {
        throw new UnsupportedOperationException();
    }

    public void setResult(Result r) {
        throw new UnsupportedOperationException();
    }

    public JobT getParent() {
        throw new UnsupportedOperationException();
    }

    public int getNumber() {
        throw new UnsupportedOperationException();
    }

    public RunT getPreviousBuild() {
        throw new UnsupportedOperationException();
    }

    public File getRootDir() {
        throw new UnsupportedOperationException();
    }

    public String getUrl() {
        throw new UnsupportedOperationException();
    }

    public String getDisplayName() {
        throw new UnsupportedOperationException();
    }

    public boolean isBuilding() {
        throw new UnsupportedOperationException();
    }

    public synchronized void save() throws IOException {
        throw new UnsupportedOperationException();
    }

    public String getExternalizableId() {
        throw new UnsupportedOperationException();
    }
}
