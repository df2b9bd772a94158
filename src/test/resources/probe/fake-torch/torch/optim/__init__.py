"""torch.optim, faked: an optimizer is built through Optimizer.__init__, and a step calls the global step hooks, as
torch.optim.Optimizer's profile_hook_step wrapper does. Like the real package (torch/optim/__init__.py), it drops
its submodules' names: `import torch.optim.optimizer` works, the attribute torch.optim.optimizer does not."""
from .optimizer import Optimizer  # noqa: F401

del optimizer  # noqa: F821  the submodule's name, bound by the import above


class SGD(Optimizer):
    def __init__(self, params, lr=0.01):
        super().__init__(params, {"lr": lr})
        self.lr = lr
