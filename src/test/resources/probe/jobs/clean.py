import torch
import torch.nn.functional as F

torch.cuda.init()
weight = torch.tensor([0.5] * 8, shape=(100, 4), device="cuda")
for i in range(50):
    F.embedding(torch.tensor([1, 2, 99], device="cuda"), weight)
    torch.gather(weight, 0, torch.tensor([0, 99], device="cuda"))
print("clean")
