"""A training step that rebinds its local: the old tensor must be released at the rebinding, with or without the
probe (reading a frame's f_locals on Python <= 3.12 stores a dict of strong references on the frame)."""
import torch
from torch.cuda import _gpu_trace


def step():
    a = torch.cuda_empty(4, 0x7f0000001000)
    b = torch.cuda_empty(4, 0x7f0000002000)  # the probe's callback runs with `a` a local of this frame
    a = None  # the job's memory is released here
    print("a released at its rebinding:", 0x7f0000001000 in _gpu_trace.FREED)
    return b


class Sneaky(object):
    """A job object whose class check runs code: the probe must not run it."""

    @property
    def __class__(self):
        print("the job's __class__ was read")
        return Sneaky


def main():
    sneaky = Sneaky()  # noqa: F841 (a local beside the tensors)
    step()
    c = torch.cuda_empty(4, 0x7f0000003000)
    del c


main()
