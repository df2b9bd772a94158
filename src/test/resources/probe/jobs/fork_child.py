"""A job that forks (a DataLoader worker): the child's allocations and work are its own."""
import os
import sys

import torch
import torch.optim.optimizer as optimizer  # torch.optim drops the submodule's name, as the real one does

x = torch.cuda_empty(4, 0x7f0000001000)
for hook in optimizer._global_step_post_hooks:
    hook(None, (), {})  # the parent's one optimizer step
pid = os.fork()
if pid == 0:
    y = torch.cuda_empty(4, 0x7f0000005000)
    sys.exit(0)
os.waitpid(pid, 0)
print("parent done")
