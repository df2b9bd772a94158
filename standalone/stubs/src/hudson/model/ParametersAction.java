package hudson.model;

// Compile-only signature stub of hudson.model.ParametersAction: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/ParametersAction.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import java.util.Iterator;
import java.util.List;
import jenkins.model.RunAction2;

public class ParametersAction implements RunAction2, Iterable<ParameterValue> {
    public ParametersAction(@NonNull List<ParameterValue> parameters) {
        throw new RuntimeException("Stub!");
    }

    public ParametersAction(List<ParameterValue> parameters, java.util.Collection<String> additionalSafeParameters) {
        throw new RuntimeException("Stub!");
    }

    public ParametersAction(ParameterValue... parameters) {
        throw new RuntimeException("Stub!");
    }

    public List<ParameterValue> getParameters() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public Iterator<ParameterValue> iterator() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public String getIconFileName() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public String getDisplayName() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public String getUrlName() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public void onAttached(Run<?, ?> r) {
        throw new RuntimeException("Stub!");
    }

    @Override
    public void onLoad(Run<?, ?> r) {
        throw new RuntimeException("Stub!");
    }
}
