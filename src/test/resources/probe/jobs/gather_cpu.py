import torch

src = torch.tensor([1, 2, 3, 4], shape=(2, 2))
idx = torch.tensor([0, 1, 2, 1], shape=(2, 2))
try:
    src.gather(1, idx)  # line 6: caught by the job
except RuntimeError as e:
    print("caught:", e)
print("done")
