from torch._inductor.utils import IndentedBuffer  # noqa: F401  (torch/_dynamo/guards.py:101 in torch 2.11)
