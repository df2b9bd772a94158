import torch

m1 = torch.randn(2, 291105, 1).to_sparse().cuda()
m2 = torch.randn(2, 1, 1).cuda()
print([m1.size(), m2.size()])

torch.bmm(m1, m2)
