import torch


def embedding(input, weight, padding_idx=None):
    torch._check_cuda(weight._device)
    rows = weight.shape[0]
    if any(i < 0 or i >= rows for i in input.data):
        if weight.is_cuda:
            torch._poison()
        raise IndexError("index out of range in self")
    return torch.Tensor([0.0] * (input.numel() * weight.shape[1]), input.shape + (weight.shape[1],),
                        weight.dtype, weight._device)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    torch._check_cuda(input._device)
    classes = input.shape[1]
    if any((t < 0 and t != ignore_index) or t >= classes for t in target.data):
        if input.is_cuda:
            torch._poison()
        raise IndexError("Target %d is out of bounds." % max(target.data))
    return torch.Tensor([0.0], (), torch.float32, input._device)
