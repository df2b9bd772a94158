"""torch.save to a path outside the run's copy, one inside it, and to a buffer: the probe names the outside path as a
write (torch's C++ writer opens it unseen by Python), passes every call through unchanged, and names nothing else."""
import io
import os
import sys

import torch
import torch.serialization

outside = os.path.join(os.path.dirname(os.getcwd()), "snapshot.pt")
result = torch.save({"epoch": 3}, outside)
torch.serialization.save({"epoch": 4}, "inside.pt", pickle_protocol=4)
torch.save({"epoch": 5}, io.BytesIO())
print("returned", result, "saved", [(o["epoch"], f if isinstance(f, str) else type(f).__name__)
                                    for o, f in torch.serialization.saved])
print("same function", torch.save is torch.serialization.save, torch.save.__name__)
sys.exit(0)
