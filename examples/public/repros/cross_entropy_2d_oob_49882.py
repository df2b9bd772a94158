# Source: https://github.com/pytorch/pytorch/issues/49882 ("nll_loss2d: t >= 0 && t < n_classes assertion is not
# checked when reduction='none'"), the issue's code block copied verbatim below. Targets up to 21 for 19 classes;
# the CPU run gives "IndexError: Target 20 is out of bounds." (current PyTorch asserts in nll_loss2d on CUDA).
import torch
import torch.nn.functional as F

is_cuda = True

input = torch.randn(1, 19, 32, 64, requires_grad=True)
target = torch.randint(22, size=(1,32,64,))
print(input.dim())

print("number of out-of-bound targets", (target > 18).sum())

if is_cuda:
    input = input.cuda()
    target = target.cuda()

out = F.cross_entropy(input, target, weight=None, ignore_index=255, reduction='none')
print(out)
