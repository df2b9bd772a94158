package hudson.model;

// Compile-only signature stub of hudson.model.AbstractItem: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/AbstractItem.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import hudson.security.AccessControlled;

public abstract class AbstractItem extends Actionable implements Item, AccessControlled {
    protected AbstractItem(ItemGroup parent, String name) {
        throw new RuntimeException("Stub!");
    }

    // getParent() is left out: the real one carries a bridge method returning Jenkins (@WithBridgeMethods), which
    // Java source cannot declare beside it; Item's declaration serves every call.

    @Override
    public String getDisplayName() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public final String getFullName() {
        throw new RuntimeException("Stub!");
    }

    public final String getFullDisplayName() {
        throw new RuntimeException("Stub!");
    }

    @Override
    public final String getUrl() {
        throw new RuntimeException("Stub!");
    }
}
