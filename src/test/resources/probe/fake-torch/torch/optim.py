"""torch.optim, faked: building an optimizer imports torch._dynamo, as torch/_compile.py does in torch 2.x."""


class SGD(object):
    def __init__(self, params, lr=0.01):
        import torch._dynamo  # noqa: F401

        self.params = list(params)
        self.lr = lr
