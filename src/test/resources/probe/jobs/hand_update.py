"""A hand-written update (pytorch/examples word_language_model): loss.backward() and p.data.add_(...) by hand, no
optimizer; then one torch.autograd.grad, as a torch.func inner loop calls it."""
import torch

weights = torch.tensor([1.0, 2.0])
for step in range(5):
    loss = torch.tensor([0.5])
    loss._leaves = [weights]
    loss.backward()
    weights.data = [w - 0.1 * weights.grad for w in weights.data]  # p.data.add_(p.grad, alpha=-lr)
(g,) = torch.autograd.grad(loss, weights)
print("passes", torch.autograd.PASSES)
print("TorchScript knows grad and backward:", torch.jit._builtins._find_builtin(torch.autograd.grad),
      torch.jit._builtins._find_builtin(torch.autograd.backward))
