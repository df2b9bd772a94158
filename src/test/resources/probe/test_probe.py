"""Tests of the probe (sitecustomize.py, gpu_sanitize_probe.py and its parts) through real Python processes, with
the stand-in torch in fake-torch/ (each part alone: test_probe_parts.py). Run by ProbeScriptTest: PROBE_DIR is the
folder the runner would write (probe/ in a run directory), this file's folder holds fake-torch/ and jobs/.

Every job is run twice, without and with the probe: its exit code, stdout and stderr must be the same.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE_DIR = os.environ["PROBE_DIR"]
FAKE_TORCH = os.path.join(HERE, "fake-torch")
JOBS = os.path.join(HERE, "jobs")


class ProbeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="probe-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_job(self, job, mode=None, extra_path=(), env=None, torch=True, cwd=None, out_dir=None):
        out = os.path.join(out_dir or self.tmp, "probe-%s.jsonl" % (mode or "off"))
        path = list(extra_path) + ([FAKE_TORCH] if torch else [])
        e = {k: v for k, v in os.environ.items() if not k.startswith("GPU_SANITIZE_PROBE")}
        e.pop("PYTHONPATH", None)
        e["PYTHONDONTWRITEBYTECODE"] = "1"
        if mode is not None:
            path = [PROBE_DIR] + path
            e["GPU_SANITIZE_PROBE_OUT"] = out
            e["GPU_SANITIZE_PROBE_MODE"] = mode
            e["GPU_SANITIZE_PROBE_INTERVAL"] = "0.1"
        if path:
            e["PYTHONPATH"] = os.pathsep.join(path)
        e.update(env or {})
        p = subprocess.run([sys.executable, os.path.join(JOBS, job)], cwd=cwd or self.tmp, env=e,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        records = []
        if os.path.exists(out):
            with open(out) as f:
                records = [json.loads(line) for line in f]
        return p.returncode, p.stdout.decode(), p.stderr.decode(), records

    def same_with_and_without(self, job, mode, **kw):
        off = self.run_job(job, None, **kw)
        on = self.run_job(job, mode, **kw)
        self.assertEqual(off[0], on[0], "exit code")
        self.assertEqual(off[1], on[1], "stdout")
        self.assertEqual(off[2], on[2], "stderr")
        return on

    @staticmethod
    def of(records, kind):
        return [r for r in records if r["type"] == kind]

    def test_a_job_without_torch_gets_no_probe_output(self):
        for mode in ("blocking", "regression"):
            rc, out, err, records = self.same_with_and_without("plain.py", mode, torch=False)
            self.assertEqual(3, rc)
            self.assertEqual([], records)
            # torch on the path but never imported: still nothing
            rc, out, err, records = self.same_with_and_without("plain.py", mode)
            self.assertEqual([], records)
            self.assertNotIn("torch", sys.modules)

    def test_the_census_is_armed_in_the_blocking_run_only_and_leaves_the_jobs_output_alone(self):
        census = os.path.join(self.tmp, "census")
        for mode in ("sanitizer", "regression"):
            self.run_job("plain.py", mode, env={"GPU_SANITIZE_CENSUS_DIR": census})
            self.assertFalse(os.path.exists(census), mode)
        rc, out, err, records = self.same_with_and_without("plain.py", "blocking",
                                                           env={"GPU_SANITIZE_CENSUS_DIR": census})
        self.assertEqual(3, rc)
        with open(os.path.join(census, "build.log")) as f:
            said = f.read()
        # built where this machine has a C compiler and CUPTI, else the reason; either way a line for each try
        self.assertRegex(said, r"^(built: |no census: |not built: )")

    def test_an_existing_sitecustomize_still_runs(self):
        other = os.path.join(self.tmp, "other")
        os.mkdir(other)
        with open(os.path.join(other, "sitecustomize.py"), "w") as f:
            f.write("import sys\nprint('the job own sitecustomize', __name__)\n")
        rc, out, err, records = self.same_with_and_without("plain.py", "blocking", extra_path=[other])
        self.assertIn("the job own sitecustomize sitecustomize", out)

    def test_a_failing_sitecustomize_fails_as_it_did(self):
        other = os.path.join(self.tmp, "other")
        os.mkdir(other)
        with open(os.path.join(other, "sitecustomize.py"), "w") as f:
            f.write("raise ValueError('broken site')\n")
        rc, out, err, records = self.same_with_and_without("embedding.py", "blocking", extra_path=[other])
        self.assertIn("Error in sitecustomize", err)
        self.assertIn("ValueError: broken site", err)
        self.assertEqual(1, len(self.of(records, "op-failure")), "the probe still works")

    def test_embedding_index_past_the_table(self):
        rc, out, err, records = self.same_with_and_without("embedding.py", "blocking")
        self.assertEqual(1, rc)
        self.assertIn("device-side assert triggered", err)
        self.assertNotIn("gpu_sanitize_", err, "no frame of the probe's modules in the job's traceback")
        hello = self.of(records, "probe")[0]
        self.assertEqual("blocking", hello["mode"])
        self.assertIn("torch.nn.functional.embedding", hello["watched"])
        [f] = self.of(records, "op-failure")
        self.assertEqual("aten::embedding", f["op"])
        self.assertEqual(9, f["site"]["line"])
        self.assertEqual("forward", f["site"]["function"])
        self.assertTrue(f["site"]["file"].endswith("embedding.py"))
        self.assertIn("F.embedding(tokens, weight)", f["site"]["code"])
        self.assertEqual(15, f["stack"][0]["line"])
        c = f["check"]
        self.assertEqual((0, 5000, 5000, "weight", "rows", "index"),
                         (c["min"], c["max"], c["size"], c["of"], c["unit"], c["name"]))
        self.assertTrue(c["outOfRange"])
        self.assertEqual("before the call", c["statsFrom"])
        self.assertIn({"name": "weight", "shape": [5000, 4], "dtype": "float32", "device": "cuda:0", "index": False},
                      f["args"])
        self.assertEqual("RuntimeError", f["exception"]["type"])
        self.assertEqual(2, self.of(records, "exit")[0]["watchedCalls"])

    def test_label_equal_to_the_class_count(self):
        rc, out, err, records = self.same_with_and_without("label.py", "blocking")
        [f] = self.of(records, "op-failure")
        self.assertEqual("aten::cross_entropy_loss", f["op"])
        self.assertEqual(7, f["site"]["line"])
        c = f["check"]
        self.assertEqual(("target", 0, 10, 10, "classes", -100), (c["name"], c["min"], c["max"], c["size"], c["unit"],
                                                                  c["ignoreIndex"]))
        self.assertTrue(c["outOfRange"])

    def test_a_caught_cpu_failure_is_recorded_after_the_fact(self):
        rc, out, err, records = self.same_with_and_without("gather_cpu.py", "blocking")
        self.assertEqual(0, rc)
        self.assertIn("done", out)
        [f] = self.of(records, "op-failure")
        self.assertEqual("aten::gather", f["op"])
        self.assertEqual(6, f["site"]["line"])
        c = f["check"]
        self.assertEqual((2, 2, "entries along dim 1", "after the failure"), (c["max"], c["size"], c["unit"],
                                                                             c["statsFrom"]))

    def test_under_the_sanitizer_torch_compile_runs_in_the_default_mode(self):
        rc, off, err, _ = self.run_job("compiled.py", None)
        self.assertEqual(0, rc, err)
        self.assertIn("compile mode=reduce-overhead options=[]", off)
        rc, on, err, records = self.run_job("compiled.py", "sanitizer")
        self.assertEqual(0, rc, err)
        self.assertEqual([
            "compile mode=None options=[]",
            "compile mode=None options=[]",  # the decorator's factory call
            "compile mode=None options=[]",  # and its call on the function
            "compile mode=None options=[('max_autotune', False)]",
            "compile mode=None options=[]",
            "done",
        ], on.splitlines())
        changed = self.of(records, "compile-mode")
        self.assertEqual(["mode='reduce-overhead'", "mode='max-autotune-no-cudagraphs'", "options triton.cudagraphs"],
                         [r["requested"] for r in changed])
        self.assertEqual([5, 8, 13], [r["at"]["line"] for r in changed])
        self.assertTrue(all(r["at"]["file"].endswith("compiled.py") for r in changed))
        self.assertEqual([], self.of(records, "probe-error"))

    def alloc_lines(self, suffix=".jsonl"):
        names = [n for n in os.listdir(self.tmp) if n.startswith("alloc-") and n.endswith(suffix)
                 and (suffix != ".jsonl" or not n.endswith(".prev.jsonl"))]
        self.assertEqual(1, len(names), os.listdir(self.tmp))
        with open(os.path.join(self.tmp, names[0])) as f:
            return [json.loads(line) for line in f]

    def test_under_the_sanitizer_uncached_allocations_are_recorded_as_the_job_runs(self):
        env = {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1", "GPU_SANITIZE_PROBE_PADDING": "4096"}
        off = self.run_job("alloc_fault.py", None, env=env)
        rc, out, err, records = self.run_job("alloc_fault.py", "sanitizer", env=env)
        self.assertEqual((off[0], off[1], off[2]), (rc, out, err), "the job's own output")
        self.assertTrue(self.of(records, "probe")[0]["allocations"].startswith("on"))
        lines = self.alloc_lines()
        self.assertEqual({"type": "alloc-record", "frees": True, "padding": 4096,
                          "shapes": sys.version_info >= (3, 13)}, lines[0], "what the record holds, first")
        sites = {r["id"]: r for r in self.of(lines, "alloc-site")}
        allocs = self.of(lines, "alloc")
        self.assertEqual(["0x7f0000001000"] * 3 + ["0x7f0000002000", "0x7f0000003000"], [a["ptr"] for a in allocs],
                         "x allocated again after each free: the record says which block held the address when")
        first = sites[allocs[0]["site"]]
        self.assertEqual((5, "make"), (first["site"]["line"], first["site"]["function"]))
        self.assertEqual(9, first["caller"]["line"])
        self.assertEqual(11, sites[allocs[3]["site"]]["site"]["line"])
        frees = self.of(lines, "free")[:3]
        self.assertEqual(["0x7f0000001000"] * 3, [f["ptr"] for f in frees])
        self.assertEqual({(10, "del x")}, {(sites[f["site"]]["site"]["line"], sites[f["site"]]["site"]["code"])
                                           for f in frees}, "the line that freed it")
        shapes = {r["ptr"]: (r["dtype"], r["shape"]) for r in self.of(lines, "alloc-shape")}
        if sys.version_info >= (3, 13):
            self.assertEqual({"0x7f0000002000": ("float32", [8])}, shapes, "x was freed; z never seen before the end")
        else:
            self.assertEqual({}, shapes, "no f_locals read on Python 3.12 and older: it keeps tensors alive")
        summary = self.of(records, "alloc-summary")[0]
        self.assertEqual((5, 3, 1, 0), (summary["calls"], summary["frees"], summary["files"], summary["dropped"]))
        self.assertEqual([], self.of(records, "probe-error"))

    def test_a_full_allocation_file_rotates_and_the_new_one_starts_with_what_is_live_and_freed_last(self):
        env = {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1", "GPU_SANITIZE_PROBE_MAX_ALLOCS": "6"}
        rc, out, err, records = self.run_job("alloc_fault.py", "sanitizer", env=env)
        prev, cur = self.alloc_lines(".prev.jsonl"), self.alloc_lines()
        self.assertEqual("alloc-record", prev[0]["type"])
        self.assertEqual("alloc-record", cur[0]["type"], "every file says what it holds")
        live = [r["ptr"] for r in self.of(cur, "alloc")]
        self.assertIn("0x7f0000001000", live, "x, freed before the rotation, is carried with its free")
        self.assertEqual(["0x7f0000002000", "0x7f0000003000"], [p for p in live if p != "0x7f0000001000"])
        freed = self.of(cur, "free")
        self.assertEqual("0x7f0000001000", freed[0]["ptr"])
        sites = {r["id"]: r for r in self.of(cur, "alloc-site")}
        self.assertEqual(10, sites[freed[0]["site"]]["site"]["line"], "the free's site is in the new file too")

    def all_alloc_files(self):
        out = {}
        for n in os.listdir(self.tmp):
            if n.startswith("alloc-") and n.endswith(".jsonl"):
                with open(os.path.join(self.tmp, n)) as f:
                    out[n] = [json.loads(line) for line in f]
        return out

    def test_allocations_on_other_threads_and_on_a_thread_without_frames_are_all_recorded(self):
        env = {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
        rc, out, err, records = self.same_with_and_without("alloc_threads.py", "sanitizer", env=env)
        self.assertEqual(0, rc, err)
        lines = self.alloc_lines()
        sites = {r["id"]: r for r in self.of(lines, "alloc-site")}
        allocs = self.of(lines, "alloc")
        threaded = [a for a in allocs if a["ptr"].startswith("0x7e")]
        self.assertEqual(900, len(threaded), "three threads at once: not one event dropped")
        self.assertEqual({13}, {sites[a["site"]]["site"]["line"] for a in threaded})
        self.assertEqual({14}, {sites[f["site"]]["site"]["line"] for f in self.of(lines, "free")
                                if f["ptr"].startswith("0x7e")})
        frameless = [a for a in allocs if a["ptr"] == "0x7f00000a0000"]
        self.assertEqual([None], [a["site"] for a in frameless], "recorded, with no line to name")
        self.assertEqual([None], [f["site"] for f in self.of(lines, "free") if f["ptr"] == "0x7f00000a0000"])
        summary = self.of(records, "alloc-summary")[0]
        self.assertEqual((901, 901, 0), (summary["calls"], summary["frees"], summary["dropped"]))
        self.assertEqual(0, self.of(records, "exit")[0]["dropped"])
        self.assertEqual([], self.of(records, "probe-error"))

    def test_the_probe_keeps_none_of_the_jobs_tensors_alive_and_runs_none_of_its_code(self):
        env = {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
        rc, out, err, records = self.same_with_and_without("keeps_nothing.py", "sanitizer", env=env)
        self.assertEqual(0, rc, err)
        self.assertIn("a released at its rebinding: True", out)
        self.assertNotIn("__class__ was read", out)
        shapes = self.of(self.alloc_lines(), "alloc-shape")
        if sys.version_info >= (3, 13):
            self.assertEqual(["0x7f0000001000", "0x7f0000002000"], [r["ptr"] for r in shapes],
                             "read through the proxy: a's at b's allocation, b's at a's free")
        else:
            self.assertEqual([], shapes)

    def test_a_forked_child_records_into_its_own_file_and_counts_its_own_work(self):
        env = {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
        rc, out, err, records = self.same_with_and_without("fork_child.py", "sanitizer", env=env)
        self.assertEqual(0, rc, err)
        files = self.all_alloc_files()
        self.assertEqual(2, len(files), files)
        parent = [n for n, lines in files.items() if "0x7f0000001000" in [r.get("ptr") for r in lines]]
        child = [n for n, lines in files.items() if "0x7f0000005000" in [r.get("ptr") for r in lines]]
        self.assertEqual(1, len(parent))
        self.assertEqual(1, len(child))
        self.assertNotEqual(parent, child, "the child's allocation is in the child's file only")
        self.assertEqual("alloc-record", files[child[0]][0]["type"], "the child's file starts as a file of its own")
        exits = {r["pid"]: r for r in self.of(records, "work") if r["event"] == "exit"}
        self.assertEqual(2, len(exits))
        self.assertEqual([0, 1], sorted(r["steps"] for r in exits.values()), "the parent's step is not the child's")

    def test_backward_passes_are_counted_where_no_optimizer_steps(self):
        rc, out, err, records = self.same_with_and_without("hand_update.py", "regression")
        self.assertEqual(0, rc, err)
        self.assertIn("passes ['backward', 'backward', 'backward', 'backward', 'backward', 'grad']", out)
        self.assertIn("TorchScript knows grad and backward: aten::grad aten::backward", out, "the wrappers registered")
        self.assertIn("backward", self.of(records, "probe")[0]["work"])
        work = self.of(records, "work")
        progress = [r for r in work if r["event"] == "progress"]
        self.assertEqual((0, 1), (progress[0]["steps"], progress[0]["backward"]), "a record on the first pass")
        [end] = [r for r in work if r["event"] == "exit"]
        self.assertEqual((0, 6), (end["steps"], end["backward"]))

    def coverage_stop(self, content, mode="sanitizer"):
        """train_steps.py with GPU_SANITIZE_COVERAGE_STOP naming a file that holds CONTENT (None: no file yet)."""
        stop = os.path.join(self.tmp, "coverage-stop.json")
        if content is not None:
            with open(stop, "w") as f:
                f.write(content)
        return self.run_job("train_steps.py", mode, env={"GPU_SANITIZE_COVERAGE_STOP": stop})

    def test_the_sanitizer_run_ends_itself_at_the_coverage_stop_the_runner_wrote(self):
        rc, out, err, records = self.coverage_stop('{"unit": "steps", "at": 3}')
        self.assertEqual(0, rc, err)
        # the stop is in step 3's optimizer post hook, inside opt.step(): the job's own "step 3" line is never reached
        self.assertEqual("step 1\nstep 2\n", out, "the job's output up to the stop, flushed; nothing after")
        [stop] = self.of(records, "coverage-stop")
        self.assertEqual(("steps", 3, 3, 3, True), (stop["unit"], stop["at"], stop["steps"], stop["backward"],
                                                    stop["synchronized"]))
        [end] = [r for r in self.of(records, "work") if r["event"] == "exit"]
        self.assertEqual((3, 3), (end["steps"], end["backward"]), "the work's exit record says what was done")
        self.assertIs(False, stop["cudnnBenchmark"])

    def test_the_ranks_of_a_job_end_at_one_agreed_step_two_after_where_the_first_read_the_stop(self):
        # DDP's ranks: a rank that ended a step before another would leave it waiting in the next reduction
        stop = os.path.join(self.tmp, "coverage-stop.json")
        with open(stop, "w") as f:
            f.write('{"unit": "steps", "at": 1}')
        env = {"GPU_SANITIZE_COVERAGE_STOP": stop, "WORLD_SIZE": "2"}
        first = self.run_job("train_steps.py", "sanitizer", env=env)
        self.assertEqual("step 1\nstep 2\n", first[1], "read at step 1, agreed on step 3")
        with open(stop + ".agreed") as f:
            self.assertEqual("3", f.read().strip())
        second = self.run_job("train_steps.py", "sanitizer", env=env)  # the other rank, later: the same step
        self.assertEqual(first[1], second[1])
        self.assertEqual([3, 3], [r["agreed"] for r in self.of(second[3], "coverage-stop")], "both ranks, one file")
        self.assertEqual([], [n for n in os.listdir(self.tmp) if ".agreed." in n], "no partial file left")

    def test_the_stop_says_when_cudnn_picked_its_kernels_by_timing(self):
        stop = os.path.join(self.tmp, "coverage-stop.json")
        with open(stop, "w") as f:
            f.write('{"unit": "steps", "at": 2}')
        rc, out, err, records = self.run_job("train_steps.py", "sanitizer", env={
            "GPU_SANITIZE_COVERAGE_STOP": stop, "FAKE_CUDNN_BENCHMARK": "1"})
        self.assertEqual(0, rc, err)
        self.assertIs(True, self.of(records, "coverage-stop")[0]["cudnnBenchmark"])

    def test_a_coverage_stop_in_backward_passes_ends_the_run_before_that_pass(self):
        rc, out, err, records = self.coverage_stop('{"unit": "backward", "at": 2}')
        self.assertEqual(0, rc, err)
        self.assertEqual("step 1\n", out)
        [stop] = self.of(records, "coverage-stop")
        self.assertEqual(("backward", 2, 1, 2), (stop["unit"], stop["at"], stop["steps"], stop["backward"]))

    def test_without_a_stop_written_or_with_a_broken_one_the_job_runs_to_its_end(self):
        off = self.run_job("train_steps.py", None)
        for content in (None, "{\"unit\": \"steps\"", '{"unit": "epochs", "at": 2}', '{"unit": "steps", "at": 0}'):
            rc, out, err, records = self.coverage_stop(content)
            self.assertEqual(off[:3], (rc, out, err), content)
            self.assertEqual([], self.of(records, "coverage-stop"), content)

    def test_only_the_sanitizer_run_honours_a_coverage_stop(self):
        off = self.run_job("train_steps.py", None)
        for mode in ("blocking", "regression"):
            rc, out, err, records = self.coverage_stop('{"unit": "steps", "at": 3}', mode)
            self.assertEqual(off[:3], (rc, out, err), mode)
            self.assertEqual([], self.of(records, "coverage-stop"), mode)

    def test_optimizers_built_and_their_states_loaded_are_counted_where_no_step_was_taken(self):
        rc, out, err, records = self.same_with_and_without("resumed.py", "regression")
        self.assertEqual(0, rc, err)
        self.assertIn("resumed: {0: {'momentum_buffer': 1}} steps left: 0", out, "the optimizer's own behaviour kept")
        self.assertIn("optimizers", self.of(records, "probe")[0]["work"])
        work = self.of(records, "work")
        self.assertEqual([("optimizers", 1, 0), ("loads", 1, 1)],
                         [(r["event"], r["optimizers"], r["loads"]) for r in work if r["event"] != "exit"],
                         "the first of each said at once")
        [end] = [r for r in work if r["event"] == "exit"]
        self.assertEqual((0, 0, 2, 2), (end["steps"], end["backward"], end["optimizers"], end["loads"]))

    def test_files_opened_outside_the_runs_copy_are_named_once_each_with_where_they_are(self):
        copy = os.path.join(self.tmp, "o", "copy")
        phase = os.path.join(self.tmp, "phase")  # the probe's own folder: left out
        os.mkdir(phase)
        home = os.path.join(self.tmp, "home")
        original = os.path.join(self.tmp, "original")
        for d in (copy, home, original):
            os.makedirs(d)
        with open(os.path.join(self.tmp, "o", "ckpt.json"), "w") as f:
            f.write("{}")
        env = {"GPU_SANITIZE_PROBE_ROOT": copy, "GPU_SANITIZE_PROBE_WORKSPACE": original, "HOME": home,
               "TMPDIR": self.tmp}
        rc, out, err, records = self.run_job("state.py", "blocking", env=env, cwd=copy, out_dir=phase)
        self.assertEqual(0, rc, err)
        state = self.of(records, "state")
        self.assertEqual(50, len(state), "at most 50 a process")
        named = [(r["event"], os.path.relpath(r["path"], self.tmp), r["where"]) for r in state]
        self.assertEqual([("read", "o/ckpt.json", "tmp"), ("write", "home/state.bin", "home"),
                          ("write", "original/ckpt.pt", "workspace"), ("write", "o/raw.bin", "tmp"),
                          ("write", "o/many-0.txt", "tmp")], named[:5])
        self.assertFalse([n for n in named if n[1].startswith("o/copy")], "the copy's own files are not state")
        self.assertTrue(all(isinstance(r["ts"], float) for r in state))
        self.assertEqual([], self.of(records, "probe-error"))

    def test_a_checkpoint_torch_saves_outside_the_copy_is_named_as_a_write_and_saved_unchanged(self):
        copy = os.path.join(self.tmp, "o", "copy")
        phase = os.path.join(self.tmp, "phase")
        os.makedirs(copy)
        os.mkdir(phase)
        env = {"GPU_SANITIZE_PROBE_ROOT": copy, "TMPDIR": self.tmp}
        off = self.run_job("save_outside.py", None, env=env, cwd=copy)
        for mode in ("blocking", "regression", "sanitizer"):
            rc, out, err, records = self.run_job("save_outside.py", mode, env=env, cwd=copy, out_dir=phase)
            self.assertEqual((off[0], off[1], off[2]), (rc, out, err), mode)
            state = [(r["event"], os.path.relpath(r["path"], self.tmp)) for r in self.of(records, "state")]
            self.assertEqual([("write", "o/snapshot.pt")], state, mode)
            self.assertTrue(self.of(records, "probe")[0]["saveWatched"], mode)
        self.assertIn("same function True save", off[1])

    def test_the_state_hook_can_be_turned_off(self):
        copy = os.path.join(self.tmp, "o", "copy")
        phase = os.path.join(self.tmp, "phase")
        for d in (copy, phase):
            os.makedirs(d)
        with open(os.path.join(self.tmp, "o", "ckpt.json"), "w") as f:
            f.write("{}")
        env = {"GPU_SANITIZE_PROBE_ROOT": copy, "GPU_SANITIZE_PROBE_WORKSPACE": copy, "HOME": copy,
               "GPU_SANITIZE_PROBE_STATE": "0"}
        rc, out, err, records = self.run_job("state.py", "blocking", env=env, cwd=copy, out_dir=phase)
        self.assertEqual(0, rc, err)
        self.assertEqual([], self.of(records, "state"))

    def test_with_the_caching_allocator_on_nothing_is_recorded(self):
        rc, out, err, records = self.run_job("alloc_fault.py", "sanitizer")
        self.assertIn("caching allocator is on", self.of(records, "probe")[0]["allocations"])
        self.assertEqual([], [n for n in os.listdir(self.tmp) if n.startswith("alloc-")])

    def test_the_other_modes_leave_torch_compile_alone(self):
        for mode in ("blocking", "regression"):
            rc, out, err, records = self.same_with_and_without("compiled.py", mode)
            self.assertIn("compile mode=reduce-overhead options=[]", out)
            self.assertEqual([], self.of(records, "compile-mode"))

    def test_the_probe_never_writes_into_a_file_the_job_opened_on_its_old_descriptor(self):
        for mode in ("blocking", "regression", "sanitizer"):
            rc, out, err, records = self.run_job("closerange.py", mode)
            self.assertEqual(0, rc, err)
            with open(os.path.join(self.tmp, "job.log")) as f:
                self.assertEqual("job line\n", f.read(), mode)
            self.assertEqual(["probe", "work", "exit"], [r["type"] for r in records], mode)

    def test_a_clean_job_is_left_alone(self):
        rc, out, err, records = self.same_with_and_without("clean.py", "blocking")
        self.assertEqual(0, rc)
        self.assertEqual([], self.of(records, "op-failure"))
        self.assertEqual([], self.of(records, "probe-error"))
        self.assertEqual(100, self.of(records, "exit")[0]["watchedCalls"])

    def test_growing_memory_is_attributed_to_its_allocation_site(self):
        rc, out, err, records = self.same_with_and_without("leak.py", "regression")
        self.assertEqual(0, rc)
        [h] = self.of(records, "history")
        self.assertEqual(("all", 10000), (h["api"], h["maxEntries"]))
        self.assertEqual(("alloc", "python"), (h["context"], h["stacks"]))
        sites = {s["id"]: s for s in self.of(records, "site")}
        samples = self.of(records, "sites")
        self.assertGreaterEqual(len(samples), 2)
        end = samples[-1]
        self.assertEqual("exit", end["at"])
        top = sites[end["sites"][0][0]]
        self.assertEqual((10, "step"), (top["line"], top["function"]))
        self.assertEqual(15, top["stack"][0]["line"])
        self.assertEqual((80 << 20, 40), tuple(end["sites"][0][1:]))
        self.assertEqual(88 << 20, end["allocated"])
        self.assertIn(13, [sites[s[0]]["line"] for s in end["sites"]])
        self.assertNotIn(17, [sites[s[0]]["line"] for s in end["sites"]])
        [exit_] = self.of(records, "exit")
        self.assertEqual(len(samples), exit_["samples"])
        self.assertTrue(exit_["stateSnapshots"], "snapshots without the history where torch has them")

    def test_an_optimizer_built_while_the_sampler_snapshots_is_left_alone(self):
        # torch 2.11 on the H200: torch.optim imports torch._dynamo (seconds) whose guards import
        # torch._inductor.utils; a snapshot taken meanwhile in the probe's thread imported torch._inductor
        # (torch's frame symbolizer looks up the lazy torch._inductor) and Python's import-deadlock detection
        # handed the job "cannot import name 'IndentedBuffer' from partially initialized module
        # 'torch._inductor.utils'". The fake torch makes that race deterministic (torch/_race.py).
        rc, out, err, records = self.same_with_and_without("optimizer.py", "regression")
        self.assertEqual(0, rc, err)
        self.assertIn("optimizer built", out)
        self.assertNotIn("partially initialized", err)
        [h] = self.of(records, "history")
        self.assertEqual((True, "state"), (h["periodic"], h["snapshot"]))
        periodic = [s for s in self.of(records, "sites") if s["at"] == "periodic"]
        self.assertTrue(periodic, "the sampler took its snapshot while the job imported torch._dynamo")
        self.assertEqual([], self.of(records, "probe-error"))

    def test_the_probe_imports_nothing_into_the_job(self):
        # leak.py never touches torch._dynamo or torch._inductor and prints the ones loaded at its end: the
        # same with the probe (whose snapshots used to import torch._inductor: seconds on a real torch)
        rc, out, err, records = self.same_with_and_without("leak.py", "regression")
        self.assertIn("lazy torch modules: []", out)

    def test_a_snapshot_that_wants_an_import_is_refused_it(self):
        # a torch whose snapshot imports one of its modules outright (not through the lazy attribute)
        rc, out, err, records = self.same_with_and_without("train_leak.py", "regression",
                                                           env={"FAKE_TORCH_SNAPSHOT_IMPORTS": "1"})
        self.assertEqual(0, rc, err)
        errors = [e["error"] for e in self.of(records, "probe-error")]
        self.assertIn("a snapshot asked to import torch._inductor: refused (the probe imports nothing)", errors)
        self.assertNotIn("partially initialized", err)

    def test_without_a_snapshot_form_for_a_thread_there_is_no_sampler(self):
        rc, out, err, records = self.same_with_and_without("leak.py", "regression",
                                                           env={"FAKE_TORCH_KEYWORD_SNAPSHOT": "1"})
        self.assertEqual(0, rc)
        [h] = self.of(records, "history")
        self.assertEqual((False, "python"), (h["periodic"], h["snapshot"]))
        [e] = self.of(records, "probe-error")
        self.assertEqual("sampler", e["where"])
        self.assertIn("sampled at exit and out of memory only", e["error"])
        [end] = self.of(records, "sites")
        self.assertEqual("exit", end["at"])
        sites = {s["id"]: s for s in self.of(records, "site")}
        self.assertEqual(10, sites[end["sites"][0][0]]["line"])
        self.assertFalse(self.of(records, "exit")[0]["stateSnapshots"])

    def test_an_older_torch_gets_full_snapshots(self):
        rc, out, err, records = self.same_with_and_without("leak.py", "regression",
                                                           env={"FAKE_TORCH_OLD_SNAPSHOT": "1"})
        [exit_] = self.of(records, "exit")
        self.assertFalse(exit_["stateSnapshots"])
        self.assertGreaterEqual(exit_["samples"], 2)
        self.assertEqual([], self.of(records, "probe-error"))

    def test_out_of_memory_names_where_it_failed_and_what_filled_the_card(self):
        rc, out, err, records = self.same_with_and_without("oom.py", "regression")
        self.assertEqual(1, rc)
        self.assertIn("OutOfMemoryError", err)
        [oom] = self.of(records, "oom")
        self.assertEqual(12, oom["site"]["line"])
        self.assertEqual(300 << 20, oom["requested"])
        sites = {s["id"]: s for s in self.of(records, "site")}
        at_oom = [s for s in self.of(records, "sites") if s["at"] == "oom"][0]
        self.assertEqual(8, sites[at_oom["sites"][0][0]]["line"])
        [snap] = self.of(records, "oom-snapshot")
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, snap["file"])))
        self.assertGreater(snap["bytes"], 0)

    def test_a_probe_that_breaks_is_a_note_not_a_failure(self):
        rc, out, err, records = self.same_with_and_without("leak.py", "regression",
                                                           env={"FAKE_TORCH_BREAK_CUDA": "1"})
        self.assertEqual(0, rc)
        errors = self.of(records, "probe-error")
        self.assertEqual("sampler", errors[0]["where"])
        self.assertTrue(any("_snapshot" in e["error"] for e in errors[1:]), errors)
        self.assertEqual([], self.of(records, "sites"))

    def test_no_output_variable_means_no_probe(self):
        e = {"GPU_SANITIZE_PROBE_OUT": ""}
        rc, out, err, records = self.run_job("embedding.py", "blocking", env=e)
        self.assertEqual(1, rc)
        self.assertEqual([], records)


if __name__ == "__main__":
    unittest.main(verbosity=2)
