# Source: https://github.com/pytorch/pytorch/issues/19120 ("Embedding layer does not check input range"),
# the code block copied verbatim below. Index 10 into nn.Embedding(10, 20) on CUDA: the thread reports
# "RuntimeError: CUDA error: device-side assert triggered", raised only at the later line `z = ...`.
import torch
import torch.nn as nn

emb = nn.Embedding(10, 20).cuda()
x = torch.zeros(5, 1).long() + 10
x = x.cuda()

y = emb(x)

z = torch.zeros(10).cuda()
