"""torch.autograd, faked: backward and grad as torch.autograd names them; Tensor.backward looks backward up here at
each call (torch/_tensor.py), as torch does. A pass sets .grad on the tensors it was given."""
PASSES = []


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    PASSES.append("backward")
    for t in (tensors if isinstance(tensors, (list, tuple)) else [tensors]):
        for leaf in getattr(t, "_leaves", ()):
            leaf.grad = 1.0


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None):
    PASSES.append("grad")
    return tuple(1.0 for _ in (inputs if isinstance(inputs, (list, tuple)) else [inputs]))
