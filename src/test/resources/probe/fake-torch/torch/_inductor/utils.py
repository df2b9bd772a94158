from torch import _race

_race.inductor_utils_started()

import torch._dynamo  # noqa: E402,F401  (blocks while another thread initializes torch._dynamo)


class IndentedBuffer(object):
    pass
