"""torch.optim.optimizer, faked: the global optimizer-step post hooks (torch >= 2.0)."""
_global_step_post_hooks = []


def register_optimizer_step_post_hook(hook):
    _global_step_post_hooks.append(hook)
