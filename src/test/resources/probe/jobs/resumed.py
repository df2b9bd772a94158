"""A run that resumed at its end (HF Trainer with --output_dir holding the last checkpoint): it builds its optimizer,
loads the optimizer's state, and takes no step. A second optimizer (a GAN's discriminator) is built and loaded too."""
import torch

weights = [torch.tensor([1.0])]
opt = torch.optim.SGD(weights, lr=0.1)
opt.load_state_dict({"state": {0: {"momentum_buffer": 1}}, "param_groups": [{"lr": 0.1}]})
other = torch.optim.SGD(weights, lr=0.2)
other.load_state_dict(opt.state_dict())
print("resumed:", opt.state, "steps left: 0")
