"""torch.optim.optimizer, faked: the global optimizer-step post hooks (torch >= 2.0) and the base class every
optimizer builds itself through (super().__init__) and loads its state with."""
_global_step_post_hooks = []


def register_optimizer_step_post_hook(hook):
    _global_step_post_hooks.append(hook)


class Optimizer(object):
    def __init__(self, params, defaults):
        import torch._dynamo  # noqa: F401  building an optimizer imports it, as torch/_compile.py does in torch 2.x

        self.param_groups = [{"params": list(params), **defaults}]
        self.state = {}

    def state_dict(self):
        return {"state": dict(self.state), "param_groups": [{k: v for k, v in g.items() if k != "params"}
                                                             for g in self.param_groups]}

    def load_state_dict(self, state_dict):
        self.state = dict(state_dict.get("state", {}))

    def step(self):
        for hook in list(_global_step_post_hooks):
            hook(self, (), {})
