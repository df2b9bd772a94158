package hudson.model;

// Compile-only signature stub of hudson.model.AbstractModelObject: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/AbstractModelObject.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public abstract class AbstractModelObject implements ModelObject {
    // implements SearchableModelObject (a ModelObject) in core: its search members are left out
}
