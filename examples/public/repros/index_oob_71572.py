# Source: https://github.com/pytorch/pytorch/issues/71572 ("Can't except IndexError when indexing a CUDA Tensor
# with a Tensor"), the issue's code block copied verbatim below. Index 11 into a 10-element CUDA tensor: the thread
# quotes IndexKernel.cu "Assertion `index >= -sizes[i] && index < sizes[i] && \"index out of bounds\"` failed."
import torch
x = torch.rand(10).to('cuda')
y = torch.tensor([11]).to('cuda')
print(x[y])
