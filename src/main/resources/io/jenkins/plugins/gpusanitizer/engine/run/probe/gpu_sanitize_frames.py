"""GPU Sanitizer's in-process probe: frames (docs/probe.md).

Which Python frames are the job's own (not torch's, an installed package's, the standard library's or the probe's),
the job's line as a record names it, and the job's traceback without the probe's frames. Called from the job's
threads and the sampler thread alike: nothing here imports.
"""

import os

import gpu_sanitize_core as core


# ---------------------------------------------------------------------------------------------
# frames


def _is_user(filename):
    r = core._S.user_cache.get(filename)
    if r is not None:
        return r
    r = True
    f = filename or ""
    if not f or f.startswith("<") or not f.endswith(".py"):
        r = False
    else:
        f = os.path.abspath(f)
        if os.path.dirname(f) == core._HERE:
            r = False
        elif core._S.torch_dir and f.startswith(core._S.torch_dir):
            r = False
        elif "/site-packages/" in f or "/dist-packages/" in f:
            r = False
        elif core._S.stdlib_dir and f.startswith(core._S.stdlib_dir):
            r = False
    if len(core._S.user_cache) < 10000:
        core._S.user_cache[filename] = r
    return r


def _code_line(filename, line):
    """The source line, read as UTF-8 bytes: no linecache (tokenize may import a codec, and the sampler
    thread imports nothing)."""
    try:
        lines = core._S.source.get(filename)
        if lines is None:
            if not os.path.isfile(filename):
                return None
            size = os.path.getsize(filename)
            if size > (2 << 20) or core._S.source_bytes + size > (16 << 20):
                return None  # the cache stays small: user files, read once
            with open(filename, "rb") as f:
                lines = f.read().split(b"\n")
            core._S.source[filename] = lines
            core._S.source_bytes += size
        if not 1 <= line <= len(lines):
            return None
        s = lines[line - 1].decode("utf-8", "replace").strip()
        return s[:200] if s else None
    except Exception:
        return None


def _loc(filename, line, function, code=True):
    d = {"file": filename, "line": line, "function": function}
    if code:
        c = _code_line(filename, line)
        if c:
            d["code"] = c
    return d


def _outside_torch(filename):
    f = os.path.abspath(filename or "")
    return (filename or "").endswith(".py") and os.path.dirname(f) != core._HERE and not (
        core._S.torch_dir and f.startswith(core._S.torch_dir))


def _user_frames(frame, limit=5):
    """The first user frames walking outward from `frame`, innermost first; when the job's own code is
    installed as a package (no user frame), the first frames outside torch and the probe."""
    for accept in (_is_user, _outside_torch):
        out = []
        f = frame
        depth = 0
        while f is not None and len(out) < limit and depth < 200:
            co = f.f_code
            if accept(co.co_filename):
                out.append((co.co_filename, f.f_lineno, co.co_name))
            f = f.f_back
            depth += 1
        if out:
            return out
    return []


# the job's traceback: the wrappers' frames (the probe's files) taken out before it is printed


def _strip(tb):
    """The traceback without the probe's frames (the wrappers): what the job would have printed."""
    head = prev = None
    n = 0
    while tb is not None and n < 10000:
        nxt = tb.tb_next
        if os.path.dirname(os.path.abspath(tb.tb_frame.f_code.co_filename)) != core._HERE:
            if prev is None:
                head = tb
            else:
                prev.tb_next = tb
            prev = tb
        tb = nxt
        n += 1
    if prev is not None:
        prev.tb_next = None
    return head


def _strip_chain(value):
    seen = set()
    e = value
    while e is not None and id(e) not in seen and len(seen) < 20:
        seen.add(id(e))
        if e.__traceback__ is not None:
            e.__traceback__ = _strip(e.__traceback__)
        e = e.__cause__ or e.__context__
