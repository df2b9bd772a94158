"""GPU Sanitizer's in-process probe: torch.compile in the default mode, under the sanitizer (docs/probe.md)."""

import sys

import gpu_sanitize_core as core
from gpu_sanitize_frames import _loc, _user_frames


# ---------------------------------------------------------------------------------------------
# sanitizer mode: torch.compile in the default mode

_UNDER_TOOL_MODES = ("reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def _install_sanitizer(torch):
    original = getattr(torch, "compile", None)
    if original is None:
        return False
    import functools

    @functools.wraps(original)
    def compile(*args, **kwargs):
        try:
            requested = []
            mode = kwargs.get("mode")
            if mode in _UNDER_TOOL_MODES:
                requested.append("mode=%r" % mode)
                kwargs["mode"] = None
            options = kwargs.get("options")
            if isinstance(options, dict) and options.get("triton.cudagraphs"):
                requested.append("options triton.cudagraphs")
                options = dict(options)
                options.pop("triton.cudagraphs")
                kwargs["options"] = options
            if requested:
                frames = _user_frames(sys._getframe(1), 1)
                rec = {"type": "compile-mode", "requested": ", ".join(requested), "ran": "default"}
                if frames:
                    rec["at"] = _loc(*frames[0])
                core._emit(rec, force=True)
        except Exception as e:
            core._error("compile-mode", e)
        return original(*args, **kwargs)

    torch.compile = compile
    return True

