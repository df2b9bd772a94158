"""torch.backends.cudnn, faked: the benchmark switch a job sets (cudnn.benchmark = True)."""
benchmark = False
