import torch
import torch.nn.functional as F

torch.cuda.init()
weight = torch.tensor([0.5] * 8, shape=(5000, 4), device="cuda")


def forward(tokens):
    return F.embedding(tokens, weight)  # line 9: the failing operator


print("step 0")
forward(torch.tensor([1, 2, 3], device="cuda"))
print("step 1")
forward(torch.tensor([7, 5000, 0, 12], device="cuda"))
