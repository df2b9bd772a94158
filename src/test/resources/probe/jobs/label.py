import torch
import torch.nn.functional as F

torch.cuda.init()
logits = torch.tensor([0.1] * 40, shape=(4, 10), device="cuda")
labels = torch.tensor([3, 10, 0, 9], device="cuda")
loss = F.cross_entropy(logits, labels)  # line 7
