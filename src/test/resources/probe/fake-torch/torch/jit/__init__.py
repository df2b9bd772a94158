"""torch.jit, faked: only what TorchScript's builtin lookup needs (torch/jit/_builtins.py)."""
from . import _builtins  # noqa: F401
