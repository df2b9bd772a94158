"""A job compiling in each way torch.compile is called: a mode that replays CUDA graph trees, the
decorator form, the cudagraphs option, and the default mode."""
import torch

torch.compile(lambda x: x, mode="reduce-overhead")


@torch.compile(mode="max-autotune-no-cudagraphs")
def step(x):
    return x


torch.compile(lambda x: x, options={"triton.cudagraphs": True, "max_autotune": False})
torch.compile(lambda x: x)
print("done")
