"""torch._inductor, faked. Imported alone it first imports torch._dynamo (whose guards load .utils whole)."""
import torch._dynamo.config  # noqa: F401

from . import utils  # noqa: E402,F401
