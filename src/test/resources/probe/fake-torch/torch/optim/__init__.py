"""torch.optim, faked: an optimizer is built through Optimizer.__init__, and a step calls the global step hooks, as
torch.optim.Optimizer's profile_hook_step wrapper does."""
from . import optimizer  # noqa: F401
from .optimizer import Optimizer  # noqa: F401


class SGD(Optimizer):
    def __init__(self, params, lr=0.01):
        super().__init__(params, {"lr": lr})
        self.lr = lr
