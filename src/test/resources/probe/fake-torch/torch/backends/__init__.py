"""torch.backends, faked: cuDNN's switches (torch/backends/cudnn/__init__.py), set by the job."""
from . import cudnn  # noqa: F401
