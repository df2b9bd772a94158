import os

OBSERVERS = []


def _cuda_attach_out_of_memory_observer(fn):
    OBSERVERS.append(fn)


def _len_torch_dispatch_stack():
    return 0


if not os.environ.get("FAKE_TORCH_OLD_SNAPSHOT"):
    def _cuda_memorySnapshot(mempool_id):
        """Newer torch: (pool, pool, include_traces) leaves the history out."""
        import torch

        snap = torch.cuda.memory._snapshot()
        if isinstance(mempool_id, tuple) and len(mempool_id) == 3 and not mempool_id[2]:
            snap["device_traces"] = []
        return snap
