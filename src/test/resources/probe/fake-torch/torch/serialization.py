"""The stand-in's torch.serialization: save records what it was given and writes nothing, as torch's C++ writer opens
its file without Python's open() (no audit event): a test sees the probe name the path or not."""

saved = []


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    saved.append((obj, f))
    return None
