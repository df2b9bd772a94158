"""Tests of the probe's parts, each alone, in this test's own process: the gpu_sanitize_*.py modules imported from
PROBE_DIR (the folder the runner writes), without sitecustomize, without torch (a stand-in where a part reads one),
their records caught where they are written (core._emit, which every part calls through the module). Run by
ProbeScriptTest beside test_probe.py, which runs jobs with the whole probe in real processes.
"""
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

PROBE_DIR = os.environ["PROBE_DIR"]
sys.path.insert(0, PROBE_DIR)

import gpu_sanitize_alloc as alloc  # noqa: E402
import gpu_sanitize_blocking as blocking  # noqa: E402
import gpu_sanitize_census as census  # noqa: E402
import gpu_sanitize_compile as compile_mode  # noqa: E402
import gpu_sanitize_core as core  # noqa: E402
import gpu_sanitize_frames as frames  # noqa: E402
import gpu_sanitize_no_import as no_import  # noqa: E402
import gpu_sanitize_sites as sites  # noqa: E402
import gpu_sanitize_work as work  # noqa: E402

THIS = os.path.abspath(__file__)
EMIT = core._emit  # the writer itself, for the test of it: the others catch what it is given


def line_of(text):
    """The line number of the first line of this file that holds `text`."""
    with open(THIS) as f:
        for n, line in enumerate(f, 1):
            if text in line and "line_of(" not in line:
                return n
    raise AssertionError(text)


class PartTest(unittest.TestCase):
    """Every record a part writes lands in self.records; the shared state a test changes is put back after it."""

    def setUp(self):
        self.records = []
        self.patch(core, "_emit", lambda rec, force=False: self.records.append(rec))
        self.patch(core._S, "errors", 0)

    def patch(self, target, name, value):
        p = mock.patch.object(target, name, value)
        p.start()
        self.addCleanup(p.stop)

    def of(self, kind):
        return [r for r in self.records if r["type"] == kind]

    def folder(self):
        folder = tempfile.mkdtemp(prefix="probe-parts-")
        self.addCleanup(shutil.rmtree, folder, True)
        return folder


class CoreTest(PartTest):
    def test_each_record_is_one_line_with_its_pid_and_past_the_bound_only_when_forced(self):
        out = os.path.join(self.folder(), "probe.jsonl")
        self.patch(core, "_emit", EMIT)
        self.patch(core, "_OUT", out)
        self.patch(core, "_MAX_LINES", 2)
        for name, value in (("fd", None), ("fd_id", None), ("lines", 0)):
            self.patch(core._S, name, value)
        self.addCleanup(lambda: core._S.fd is not None and os.close(core._S.fd))
        for n in range(3):
            core._emit({"type": "n", "n": n})
        core._emit({"type": "n", "n": 3}, force=True)
        with open(out) as f:
            written = [json.loads(line) for line in f]
        self.assertEqual([0, 1, 3], [r["n"] for r in written], "the third past the bound; the forced one written")
        self.assertTrue(all(r["pid"] == os.getpid() and isinstance(r["t"], float) for r in written))

    def test_probe_errors_are_bounded_first_lines_and_a_forced_note_passes_the_bound(self):
        for n in range(core._MAX_ERRORS + 5):
            core._error("where", ValueError("broken %d\nsecond line" % n))
        errors = self.of("probe-error")
        self.assertEqual(core._MAX_ERRORS, len(errors))
        self.assertEqual({"type": "probe-error", "where": "where", "error": "ValueError: broken 0"}, errors[0])
        core._note("sampler", "said anyway", force=True)
        self.assertEqual("said anyway", self.records[-1]["error"])

    def test_a_number_from_the_environment_that_is_not_a_positive_number_is_the_default(self):
        with mock.patch.dict(os.environ, {"A": "abc", "B": "-1", "C": "0.5", "D": "3"}):
            self.assertEqual(7, core._env_number("A", 7))
            self.assertEqual(7, core._env_number("B", 7))
            self.assertEqual(0.5, core._env_number("C", 7))
            self.assertEqual(3, core._env_number("D", 7, int))
            self.assertEqual(7, core._env_number("UNSET_HERE", 7))


class FramesTest(PartTest):
    def setUp(self):
        super().setUp()
        self.patch(core._S, "user_cache", {})
        self.patch(core._S, "torch_dir", "/opt/py/torch/")
        self.patch(core._S, "stdlib_dir", os.path.dirname(os.path.abspath(os.__file__)) + os.sep)

    def test_the_probe_torch_installed_packages_and_the_standard_library_are_not_the_jobs(self):
        self.assertTrue(frames._is_user(THIS))
        for f in (os.path.join(PROBE_DIR, "gpu_sanitize_work.py"), "/opt/py/torch/nn/functional.py",
                  "/venv/lib/python3.11/site-packages/x.py", "/usr/lib/python3/dist-packages/y.py", os.__file__,
                  "<string>", "kernel.pyx", "", None):
            self.assertFalse(frames._is_user(f), f)

    def test_the_job_frames_are_named_innermost_first_with_the_line(self):
        def inner():
            return frames._user_frames(sys._getframe(), 2)  # the innermost frame

        def outer():
            return inner()  # its caller

        found = outer()
        self.assertEqual([(THIS, line_of("# the innermost frame"), "inner"), (THIS, line_of("# its caller"), "outer")],
                         found)
        self.assertEqual({"file": THIS, "line": found[0][1], "function": "inner",
                          "code": "return frames._user_frames(sys._getframe(), 2)  # the innermost frame"},
                         frames._loc(*found[0]))
        self.assertNotIn("code", frames._loc(*found[1], code=False))

    def test_a_job_installed_as_a_package_is_named_by_its_frames_outside_torch_and_the_probe(self):
        self.patch(frames, "_is_user", lambda filename: False)  # the job's code in site-packages: no user frame
        here = frames._user_frames(sys._getframe(), 1)
        self.assertEqual([(THIS, line_of("here = frames._user_frames"), sys._getframe().f_code.co_name)], here)

    def test_the_traceback_the_job_prints_loses_the_probes_frames_and_keeps_its_own(self):
        def backward(*args):
            raise RuntimeError("the job's error")

        counted = work._counting_backward(backward)  # a wrapper frame of the probe
        try:
            try:
                counted()
            except RuntimeError:
                raise ValueError("while handling it")
        except ValueError as e:
            caught = e
        self.assertIn(PROBE_DIR, [os.path.dirname(f) for f in files(caught.__context__.__traceback__)])
        frames._strip_chain(caught)
        for tb in (caught.__traceback__, caught.__context__.__traceback__):
            self.assertNotIn(PROBE_DIR, [os.path.dirname(f) for f in files(tb)])
        self.assertEqual([THIS, THIS], files(caught.__context__.__traceback__), "the test and the job's function")


def files(tb):
    out = []
    while tb is not None:
        out.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    return out


class WorkTest(PartTest):
    def setUp(self):
        super().setUp()
        work._work_after_fork()
        self.addCleanup(work._work_after_fork)
        self.clock = [100.0]
        self.patch(work, "time", types.SimpleNamespace(time=lambda: self.clock[0]))

    def progress(self):
        return [(r["steps"], r["backward"]) for r in self.of("work") if r["event"] == "progress"]

    def test_backward_passes_are_counted_before_they_run_and_the_first_is_said_at_once(self):
        def backward(x, retain_graph=False):
            if x is None:
                raise RuntimeError("element 0 of tensors does not require grad")
            return x, retain_graph

        counted = work._counting_backward(backward)
        self.assertEqual(("loss", True), counted("loss", retain_graph=True))
        self.assertEqual((1, "backward"), (work._W.backward, counted.__name__))
        self.assertRaises(RuntimeError, counted, None)
        self.assertEqual(2, work._W.backward, "a pass that raised was still asked for")
        self.assertEqual([(0, 1)], self.progress(), "the first at once, the next ones within the interval: none")

    def test_steps_write_a_progress_record_at_most_every_few_seconds(self):
        for t in (100.0, 100.5, 101.0, 102.5, 103.0):
            self.clock[0] = t
            work._work_step(None, (), {})
        self.assertEqual([(1, 0), (4, 0)], self.progress())

    def test_optimizers_built_and_states_loaded_are_counted_and_the_first_of_each_said_at_once(self):
        class Optimizer(object):
            def __init__(self, params):
                self.params = params

            def load_state_dict(self, state):
                self.state = state

        for name, counter in (("__init__", "optimizers"), ("load_state_dict", "loads")):
            setattr(Optimizer, name, work._counting_optimizer(Optimizer.__dict__[name], counter))
        a = Optimizer([1])
        Optimizer([2]).load_state_dict({"step": 3})
        self.assertEqual([1], a.params, "the optimizer's own behaviour kept")
        self.assertEqual((2, 1), (work._W.optimizers, work._W.loads))
        self.assertEqual([("optimizers", 1, 0), ("loads", 2, 1)],
                         [(r["event"], r["optimizers"], r["loads"]) for r in self.of("work")])

    def test_install_arms_the_optimizer_counters_where_torch_optim_hides_its_submodule(self):
        # torch 2.11: `import torch.optim.optimizer` works, the attribute torch.optim.optimizer does not (the card,
        # 2026-12-07: "work-optimizers: AttributeError: module 'torch.optim' has no attribute 'optimizer'")
        hooks = []

        class Optimizer(object):
            def __init__(self, params):
                self.params = params

            def load_state_dict(self, state):
                self.state = state

        submodule = types.ModuleType("torch.optim.optimizer")
        submodule.Optimizer = Optimizer
        submodule.register_optimizer_step_post_hook = hooks.append
        optim = types.ModuleType("torch.optim")
        optim.Optimizer = Optimizer
        torch = types.ModuleType("torch")
        torch.optim = optim
        torch.cuda = types.SimpleNamespace(_lazy_call=lambda f: None)
        torch.autograd = types.SimpleNamespace()
        with mock.patch.dict(sys.modules, {"torch": torch, "torch.optim": optim, "torch.optim.optimizer": submodule}):
            armed = work._install_work(torch)
        self.assertFalse(hasattr(optim, "optimizer"))
        self.assertEqual([], self.of("probe-error"))
        self.assertIn("optimizers", armed)
        self.assertEqual([work._work_step], hooks)
        Optimizer([1]).load_state_dict({})
        self.assertEqual((1, 1), (work._W.optimizers, work._W.loads))

    def test_a_forked_child_counts_from_zero(self):
        work._work_step(None, (), {})
        work._counting_backward(lambda: None)()
        work._work_after_fork()
        self.assertEqual((0, 0, 0, 0, False), (work._W.steps, work._W.backward, work._W.optimizers, work._W.loads,
                                               work._W.cuda))

    def test_the_exit_counters_say_the_allocators_and_a_broken_one_is_a_note(self):
        stats = {"allocation.all.allocated": 12, "allocated_bytes.all.allocated": 4096}
        torch = types.SimpleNamespace(cuda=types.SimpleNamespace(is_initialized=lambda: True,
                                                                 memory_stats=lambda: stats))
        work._work_step(None, (), {})
        self.assertEqual({"steps": 1, "backward": 0, "optimizers": 0, "loads": 0, "cuda": True, "allocations": 12,
                          "allocatedBytes": 4096}, work._work_counters(torch))
        torch.cuda.memory_stats = lambda: {}["missing"]
        self.assertEqual(1, work._work_counters(torch)["steps"])
        self.assertEqual(["work-counters"], [r["where"] for r in self.of("probe-error")])


class NoImportTest(PartTest):
    def setUp(self):
        super().setUp()
        self.patch(core._S, "refused", set())

    def test_a_snapshot_call_flags_its_thread_and_puts_the_flag_back(self):
        flag = lambda: getattr(core._S.tls, "no_import", False)  # noqa: E731
        self.assertFalse(flag())
        self.assertTrue(no_import._no_import_call(flag))
        self.assertTrue(no_import._no_import_call(no_import._no_import_call, flag))
        self.assertFalse(flag())

    def test_the_guard_refuses_a_snapshot_torchs_modules_and_notes_any_other_import(self):
        guard = no_import._ImportGuard()
        sys.meta_path.insert(0, guard)
        self.addCleanup(sys.meta_path.remove, guard)
        self.assertIsNone(guard.find_spec("torch._inductor"), "the job's own imports are not its business")
        with self.assertRaises(ImportError):
            no_import._no_import_call(importlib.import_module, "torch._inductor")
        self.assertIsNone(no_import._no_import_call(guard.find_spec, "colorsys"))
        self.assertIsNone(no_import._no_import_call(guard.find_spec, "colorsys"))
        self.assertEqual(["a snapshot asked to import torch: refused (the probe imports nothing)",
                          "a snapshot imported colorsys (let through: not one of torch's modules)"],
                         [r["error"] for r in self.of("probe-error")], "each name once")

    def test_a_lazy_attribute_is_absent_inside_a_snapshot_only(self):
        torch = types.ModuleType("torch_standin")
        torch.__getattr__ = lambda name: "imported " + name
        self.assertTrue(no_import._guard_lazy_attributes(torch))
        self.assertFalse(no_import._guard_lazy_attributes(torch), "wrapped once")
        self.assertEqual("imported _inductor", torch._inductor)
        self.assertFalse(no_import._no_import_call(hasattr, torch, "_inductor"))


def block(size, frames_, state="active_allocated"):
    return {"size": size, "state": state,
            "frames": [{"filename": f, "line": n, "name": fn} for f, n, fn in frames_]}


class SitesTest(PartTest):
    def setUp(self):
        super().setUp()
        self.patch(core._S, "user_cache", {})
        self.patch(core._S, "site_ids", {})
        self.patch(core._S, "torch_dir", "/opt/py/torch/")

    def test_live_blocks_are_summed_by_their_innermost_user_frame_and_each_site_is_written_once(self):
        torch_frame = ("/opt/py/torch/nn/modules/linear.py", 125, "forward")
        step = [torch_frame, ("/job/train.py", 10, "step"), ("/job/train.py", 20, "main")]
        snap = {"segments": [
            {"total_size": 8 << 20, "blocks": [block(1 << 20, step), block(1 << 20, step),
                                                block(3 << 20, step, state="inactive")]},
            {"total_size": 2 << 20, "blocks": [block(512, [("/job/data.py", 7, "load")]), block(256, [])]},
        ]}
        reduced = sites._reduce(snap)
        self.assertEqual({"allocated": (2 << 20) + 768, "reserved": 10 << 20, "blocks": 4}, {
            k: reduced[k] for k in ("allocated", "reserved", "blocks")})
        self.assertEqual([[1, 2 << 20, 2], [2, 512, 1], [3, 256, 1]], reduced["sites"], "by live bytes")
        written = self.of("site")
        self.assertEqual([("/job/train.py", 10, "step"), ("/job/data.py", 7, "load"),
                          ("<no Python frame recorded>", 0, "?")],
                         [(s["file"], s["line"], s["function"]) for s in written])
        self.assertEqual([20], [c["line"] for c in written[0]["stack"]], "the user callers above it")
        sites._reduce(snap)
        self.assertEqual(3, len(self.of("site")), "a site is written once; later samples name it by its id")
        self.assertEqual((2 << 20) + 768, sites._allocated(snap))

    def test_only_the_top_sites_are_written(self):
        self.patch(sites, "_TOP", 1)
        snap = {"segments": [{"blocks": [block(10, [("/job/a.py", 1, "f")]), block(20, [("/job/b.py", 2, "g")])]}]}
        self.assertEqual([[1, 20, 1]], sites._reduce(snap)["sites"])

    def test_an_out_of_memory_error_is_recognised_through_its_chain(self):
        class OutOfMemoryError(RuntimeError):
            pass

        self.patch(core._S, "torch", types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError, cuda=None))
        wrapped = ValueError("while loading")
        wrapped.__cause__ = OutOfMemoryError("CUDA")
        self.assertTrue(sites._is_oom(wrapped))
        self.assertTrue(sites._is_oom(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")))
        self.assertFalse(sites._is_oom(ValueError("shape mismatch")))


class CompileTest(PartTest):
    def test_a_compile_mode_the_tool_cannot_run_is_compiled_in_the_default_mode_and_said(self):
        calls = []
        torch = types.SimpleNamespace(compile=lambda *a, **kw: calls.append(kw) or "compiled")
        self.assertTrue(compile_mode._install_sanitizer(torch))
        options = {"triton.cudagraphs": True, "max_autotune": False}
        self.assertEqual("compiled", torch.compile("model", mode="reduce-overhead"))  # the job's call
        torch.compile("model", options=options)
        torch.compile("model", mode="default")
        self.assertEqual([{"mode": None}, {"options": {"max_autotune": False}}, {"mode": "default"}], calls)
        self.assertIn("triton.cudagraphs", options, "the job's own dictionary is left alone")
        said = self.of("compile-mode")
        self.assertEqual(["mode='reduce-overhead'", "options triton.cudagraphs"], [r["requested"] for r in said])
        self.assertEqual((THIS, line_of("# the job's call")), (said[0]["at"]["file"], said[0]["at"]["line"]))


class Tensor(object):
    """Enough of a CPU tensor for the blocking part's extractors and failure record."""

    is_cuda = False
    dtype = "torch.int64"
    device = "cpu"

    def __init__(self, shape, values=()):
        self.shape = shape
        self.values = values

    def dim(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n


class Scalar(object):
    def __init__(self, v):
        self.v = v

    def item(self):
        return self.v


class BlockingTest(PartTest):
    def test_each_operator_is_read_for_its_index_and_the_size_it_indexes_into(self):
        idx, table = Tensor((4,)), Tensor((5000, 8))
        self.assertEqual(("index", idx, 5000, "weight", "rows", None), blocking._x_embedding((idx, table), {}))
        logits = Tensor((4, 10))
        self.assertEqual(("target", idx, 10, "input", "classes", -100), blocking._x_loss((logits, idx), {}))
        self.assertEqual(3, blocking._x_loss((logits, idx), {"ignore_index": 3})[5])
        src = Tensor((2, 64))
        self.assertEqual(("index", idx, 64, "input", "entries along dim 1", None),
                         blocking._DIM_INDEX((src, -1, idx), {}))
        taken = blocking._TAKE((src, idx), {})
        self.assertEqual((128, "elements"), (taken[2], taken[4]), "no dim: against every element")

    def test_a_failing_call_is_written_with_its_line_and_the_index_against_the_size_and_raises_as_it_did(self):
        torch = types.SimpleNamespace(Tensor=Tensor, aminmax=lambda t: (Scalar(min(t.values)), Scalar(max(t.values))))
        self.patch(core._S, "torch", torch)
        self.patch(core._S, "failures", 0)
        self.patch(core._S, "watched_calls", 0)

        def embedding(idx, weight):
            raise IndexError("index out of range in self")

        wrapped = blocking._make_wrapper(embedding, "aten::embedding", blocking._x_embedding, ("input", "weight"))
        idx, table = Tensor((3,), (0, 7, 5000)), Tensor((5000, 8))
        with self.assertRaises(IndexError):
            wrapped(idx, table)  # the job's failing line
        [f] = self.of("op-failure")
        self.assertEqual(("aten::embedding", line_of("# the job's failing line")), (f["op"], f["site"]["line"]))
        self.assertEqual({"name": "index", "size": 5000, "of": "weight", "unit": "rows", "shape": [3],
                          "dtype": "int64", "min": 0, "max": 5000, "statsFrom": "after the failure",
                          "outOfRange": True}, f["check"])
        self.assertEqual([("input", [3], True), ("weight", [5000, 8], False)],
                         [(a["name"], a["shape"], a["index"]) for a in f["args"]])
        self.assertEqual(1, core._S.watched_calls)


class AllocTest(PartTest):
    def setUp(self):
        super().setUp()
        self.patch(core._S, "user_cache", {})
        self.patch(core._S, "stdlib_dir", os.path.dirname(os.path.abspath(os.__file__)) + os.sep)
        self.patch(alloc._A, "path", os.path.join(self.folder(), "alloc-0.jsonl"))
        alloc._alloc_after_fork()  # a fresh record of this process, in that folder
        alloc._A.header = {"type": "alloc-record", "frees": True, "shapes": alloc._SHAPES}
        self.addCleanup(self.close)

    def close(self):
        if alloc._A.fd is not None:
            os.close(alloc._A.fd)
        alloc._alloc_after_fork()
        alloc._A.header = None

    def lines(self):
        with open(alloc._A.path) as f:
            return [json.loads(line) for line in f]

    def test_an_allocation_and_its_free_are_written_with_the_lines_that_made_them(self):
        frame = sys._getframe()
        for _ in range(2):
            alloc._alloc_event("alloc", 0x1000, frame)  # allocated here
        alloc._alloc_event("free", 0x1000, frame)  # freed here
        alloc._alloc_event("alloc", 0x2000, None)  # a thread with no Python frame
        lines = self.lines()
        self.assertEqual("alloc-record", lines[0]["type"], "the file says first what it holds")
        at = {r["id"]: (r["site"]["file"], r["site"]["line"]) for r in lines if r["type"] == "alloc-site"}
        self.assertEqual([("alloc", "0x1000", (THIS, line_of("# allocated here"))),
                          ("free", "0x1000", (THIS, line_of("# freed here"))), ("alloc", "0x2000", None)],
                         [(r["type"], r["ptr"], at.get(r["site"])) for r in lines if r["type"] in ("alloc", "free")],
                         "the same address, size and site again: not written twice")
        self.assertEqual((3, 1, 0), (alloc._A.calls, alloc._A.frees, alloc._A.dropped))
        self.assertEqual([], self.of("probe-error"))


FAKE_CUPTI = os.path.join(os.path.dirname(THIS), "fake-cupti")


class CensusTest(PartTest):
    """The kernel census (gpu_sanitize_census.py and .c): built with this machine's C compiler against a stand-in
    CUPTI laid out as torch's nvidia wheel lays out its own, then driven by the stand-in's launches in a process of
    its own (the census writes at the process's exit)."""

    def wheel(self):
        """A folder with nvidia/cuda_cupti/{include,lib} as a pip install leaves it, the stand-in libcupti built."""
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            self.skipTest("no C compiler on this machine")
        site = self.folder()
        root = os.path.join(site, "nvidia", "cuda_cupti")
        shutil.copytree(os.path.join(FAKE_CUPTI, "include"), os.path.join(root, "include"))
        os.makedirs(os.path.join(root, "lib"))
        lib = os.path.join(root, "lib", "libcupti.so.13")
        subprocess.run([cc, "-shared", "-fPIC", "-I" + os.path.join(root, "include"),
                        os.path.join(FAKE_CUPTI, "src", "fake_cupti.c"), "-o", lib], check=True)
        return site, lib

    def job(self, site, lib, out, body, env=None):
        """A process that arms the census as the probe does, loads the library as the driver would and runs BODY
        (Python, with `launch(domain, name)`); its census lines, in order."""
        script = "\n".join([
            "import ctypes, os, sys",
            "sys.path[:0] = [%r, %r]" % (site, PROBE_DIR),
            "import gpu_sanitize_census as census",
            "print('armed', census.install())",
            "injection = os.environ.get('CUDA_INJECTION64_PATH')",
            "if injection:",
            "    ctypes.CDLL(injection).InitializeInjection()",
            "cupti = ctypes.CDLL(%r)" % lib,
            "CBID = {1: 307, 2: 211}",
            "def launch(domain, name):",
            "    cupti.fake_launch(domain, CBID[domain], name.encode())",
            body])
        run_env = dict(os.environ, GPU_SANITIZE_CENSUS_DIR=out)
        run_env.pop("CUDA_INJECTION64_PATH", None)
        run_env.update(env or {})
        done = subprocess.run([sys.executable, "-c", script], env=run_env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(done.returncode, 0, done.stdout)
        files = [f for f in os.listdir(out) if f.startswith("census-")] if os.path.isdir(out) else []
        lines = []
        for f in sorted(files):
            with open(os.path.join(out, f)) as fh:
                lines += [json.loads(line) for line in fh]
        return done.stdout, lines

    def test_the_census_counts_each_kernel_from_its_first_launch_per_domain_and_ignores_the_api_exit(self):
        site, lib = self.wheel()
        out = os.path.join(self.folder(), "census")
        body = "\n".join([
            "for name in ['gemm', 'gemm', 'softmax', 'gemm']:",
            "    launch(2, name)",  # a runtime launch reaches the driver too (CUDA 12, 13)
            "    launch(1, name)",
            "launch(1, 'cutlass_only_driver')",
            "launch(1, 'quote\"and\\\\backslash')"])
        printed, lines = self.job(site, lib, out, body)
        self.assertIn("armed True", printed)
        firsts = [(r["domain"], r["name"], r["index"]) for r in lines if r["type"] == "first"]
        self.assertEqual(firsts, [("runtime", "gemm", 0), ("driver", "gemm", 0), ("runtime", "softmax", 2),
                                  ("driver", "softmax", 2), ("driver", "cutlass_only_driver", 4),
                                  ("driver", 'quote"and\\backslash', 5)])
        kernels = {(r["domain"], r["name"]): (r["launches"], r["first"]) for r in lines if r["type"] == "kernel"}
        self.assertEqual(kernels[("driver", "gemm")], (3, 0))
        self.assertEqual(kernels[("runtime", "softmax")], (1, 2))
        total = lines[-1]
        self.assertEqual(total["type"], "total")
        self.assertEqual(total["launches"], {"driver": 6, "runtime": 4})
        with open(os.path.join(out, "build.log")) as f:
            self.assertIn("built:", f.read())

    def test_a_wheel_whose_headers_are_incomplete_is_built_with_a_toolkits_headers_and_its_own_library(self):
        # torch 2.11+cu130's nvidia/cu13/include has cupti.h but not crt/host_defines.h (H100, 2026-12-07)
        site, lib = self.wheel()
        include = os.path.join(site, "nvidia", "cuda_cupti", "include")
        with open(os.path.join(include, "cuda.h"), "w") as f:
            f.write('#include "crt/host_defines.h"\n')
        toolkit = self.folder()
        shutil.copytree(os.path.join(FAKE_CUPTI, "include"), os.path.join(toolkit, "include"))
        out = os.path.join(self.folder(), "census")
        printed, lines = self.job(site, lib, out, "launch(1, 'k')", env={"CUDA_HOME": toolkit})
        self.assertIn("armed True", printed)
        self.assertEqual([(r["type"], r["name"]) for r in lines if r["type"] == "first"], [("first", "k")])
        with open(os.path.join(out, "build.log")) as f:
            log = f.read()
        self.assertIn("not built: ", log)
        self.assertIn("crt/host_defines.h", log)
        self.assertIn("built: ", log.split("not built: ")[-1])
        self.assertIn("-I" + os.path.join(toolkit, "include"), log.splitlines()[-1])
        self.assertIn(lib, log.splitlines()[-1])

    def test_the_probe_reads_the_count_step_by_step_from_the_library_the_driver_loaded(self):
        site, lib = self.wheel()
        out = os.path.join(self.folder(), "census")
        probe_out = os.path.join(self.folder(), "probe.jsonl")
        body = "\n".join([
            "import gpu_sanitize_coverage as coverage",
            "launch(2, 'gemm')",
            "coverage.tick('backward', 0, 1)",  # the first pass: one kernel so far
            "launch(2, 'gemm')",
            "coverage.tick('step', 1, 1)",  # nothing new: no record
            "launch(2, 'softmax')",
            "launch(1, 'softmax')",  # the driver's side of the same launch is a pair of its own
            "coverage.tick('backward', 1, 2)",
            "coverage.tick('step', 2, 2)",
            "print('count', ctypes.CDLL(injection).gpu_sanitize_census_distinct())"])
        printed, lines = self.job(site, lib, out, body, env={
            "GPU_SANITIZE_PROBE_OUT": probe_out, "GPU_SANITIZE_PROBE_MODE": "blocking"})
        self.assertIn("count 3", printed)
        with open(probe_out) as f:
            records = [json.loads(line) for line in f]
        self.assertEqual([("backward", 0, 1, 1), ("backward", 1, 2, 3)],
                         [(r["hook"], r["steps"], r["backward"], r["distinct"]) for r in records
                          if r["type"] == "census"])
        self.assertEqual(3, [r for r in lines if r["type"] == "total"][0]["distinct"], "the same count at the exit")

    def test_without_the_census_loaded_the_probe_counts_nothing(self):
        probe_out = os.path.join(self.folder(), "probe.jsonl")
        script = "\n".join([
            "import sys",
            "sys.path[:0] = [%r]" % PROBE_DIR,
            "import gpu_sanitize_coverage as coverage",
            "coverage.tick('step', 1, 1)"])
        env = dict(os.environ, GPU_SANITIZE_PROBE_OUT=probe_out, GPU_SANITIZE_PROBE_MODE="blocking",
                   CUDA_INJECTION64_PATH=os.path.join(self.folder(), "launch_census.so"))
        done = subprocess.run([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(0, done.returncode, done.stdout)
        self.assertFalse(os.path.exists(probe_out) and open(probe_out).read().strip(), "no census record, no error")

    def test_a_process_killed_before_its_exit_keeps_the_kernels_it_launched_first(self):
        site, lib = self.wheel()
        out = os.path.join(self.folder(), "census")
        _, lines = self.job(site, lib, out, "launch(1, 'a')\nlaunch(1, 'b')\nlaunch(1, 'a')\nos._exit(0)")
        self.assertEqual([(r["type"], r["name"]) for r in lines], [("first", "a"), ("first", "b")])

    def test_without_a_compiler_or_cupti_the_job_runs_unarmed_and_build_log_says_why(self):
        out = os.path.join(self.folder(), "census")
        self.assertFalse(census.install({"GPU_SANITIZE_CENSUS_DIR": out, "PATH": self.folder()}))
        self.assertNotIn(census.LIBRARY, os.environ.get("CUDA_INJECTION64_PATH", ""))
        with open(os.path.join(out, "build.log")) as f:
            self.assertIn("no census: no C compiler", f.read())
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc:
            empty = self.folder()
            with mock.patch.object(census, "_wheel_roots", lambda: []), \
                    mock.patch.object(census, "_toolkit_roots", lambda env: [empty]):
                self.assertFalse(census.install({"GPU_SANITIZE_CENSUS_DIR": out, "CC": cc}))
            with open(os.path.join(out, "build.log")) as f:
                self.assertIn("no census: no CUPTI found", f.read())

    def test_a_jobs_own_injection_is_left_to_it(self):
        out = os.path.join(self.folder(), "census")
        self.assertFalse(census.install({"GPU_SANITIZE_CENSUS_DIR": out, "CUDA_INJECTION64_PATH": "/opt/nsys/libinj.so"}))
        with open(os.path.join(out, "build.log")) as f:
            self.assertIn("the job sets CUDA_INJECTION64_PATH=/opt/nsys/libinj.so", f.read())

    def test_no_census_outside_the_blocking_run_or_when_the_job_turns_it_off(self):
        self.assertFalse(census.install({}))
        out = os.path.join(self.folder(), "census")
        self.assertFalse(census.install({"GPU_SANITIZE_CENSUS_DIR": out, "GPU_SANITIZE_CENSUS": "0", "CC": "cc"}))
        with open(os.path.join(out, "build.log")) as f:
            self.assertIn("off (GPU_SANITIZE_CENSUS=0", f.read())


if __name__ == "__main__":
    unittest.main(verbosity=2)
