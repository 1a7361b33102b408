"""evaluate.py: shards of one selection, pooled by `merge`, give exactly the single-process result."""
import importlib.util
import json
import os
import tempfile
import unittest

import numpy as np
import torch

from gocr.data import PackedFeatures
from gocr.model import GOCRConfig, GravityOCR
from gocr.tokenizer import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
# by path: training/layout/ (on sys.path in a full test run) has its own evaluate.py
_spec = importlib.util.spec_from_file_location("gocr_evaluate_cli", os.path.join(HERE, "evaluate.py"))
evaluate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(evaluate)
TARGETS = {"text": ["ab cd", "Hello", "x y z", "q"], "table": ["<table><tr><td>1</td></tr></table>"] * 3,
           "formula": ["x^2", "\\frac{a}{b}", "y=1"]}


def split_dir(root, tok):
    """A val split of random features: per task a few regions (text ones with two strips)."""
    r = np.random.default_rng(3)
    d = os.path.join(root, "val")
    os.makedirs(d)
    rows = 0
    with open(os.path.join(d, "features.f16"), "wb") as ff, open(os.path.join(d, "index.jsonl"), "w") as fi:
        for task, targets in TARGETS.items():
            for j, t in enumerate(targets):
                strips = [4, 3] if task == "text" else [5]
                ff.write(r.standard_normal((sum(strips), 120)).astype("<f2").tobytes())
                fi.write(json.dumps({"id": f"{task}{j}", "task": task, "target": t, "offset": rows,
                                     "strips": strips}) + "\n")
                rows += sum(strips)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"vision_dim": 120, "rows": rows}, f)
    return d


def tiny_model(seed):
    """(tokenizer, config, model): a random 2-layer decoder over the real vocabulary."""
    tok = Tokenizer.load(os.path.join(HERE, "vocab.json"))
    torch.manual_seed(seed)
    cfg = GOCRConfig(vocab_size=tok.vocab_size, d_model=32, n_layers=2, n_heads=2, head_dim=16, ffn_dim=64,
                     block_size=4, max_positions=256, task_ids=dict(tok.task_ids))
    return tok, cfg, GravityOCR(cfg).eval()


class EvaluateShardTest(unittest.TestCase):
    def test_merged_shards_equal_one_run(self):
        tok, cfg, model = tiny_model(0)
        with tempfile.TemporaryDirectory() as root:
            ds = PackedFeatures(split_dir(root, tok), tok, cfg)
            kw = dict(n_per_task=3, max_new=6, log=lambda *_: None)
            whole = evaluate.evaluate(model, ds, tok, **kw)
            parts = [evaluate.evaluate(model, ds, tok, shard=(k, 2), **kw) for k in range(2)]
            only = evaluate.evaluate(model, ds, tok, tasks={"table"}, **kw)
        self.assertEqual([p["tasks"]["text"]["n"] for p in parts], [2, 1])
        self.assertEqual(set(only["tasks"]), {"table"})
        merged = evaluate.merge(parts)
        self.assertEqual(set(merged["tasks"]), {"text", "table", "formula"})
        for task, r in whole["tasks"].items():
            m = merged["tasks"][task]
            self.assertEqual(m["n"], r["n"])
            self.assertEqual(m["sums"]["sp_tok"], r["sums"]["sp_tok"])
            for path in ("ar", "diffusion"):
                for k, v in r[path].items():
                    self.assertAlmostEqual(m[path][k], v, places=12)
            for k, v in r["self_spec"].items():
                self.assertAlmostEqual(m["self_spec"][k], v, places=12)
        for k, v in whole["overall"].items():
            self.assertAlmostEqual(merged["overall"][k], v, places=12)
        with self.assertRaises(ValueError):
            evaluate.merge([parts[0], dict(parts[1], block_size=8)])
        with self.assertRaises(ValueError):  # the same regions twice
            evaluate.merge([parts[0], parts[0]])
        with self.assertRaises(ValueError):
            evaluate.merge([whole, only])

    def test_ids_read_exactly_the_named_regions(self):
        """ids: the regions of an earlier eval, whatever the packed order; others are left out."""
        import io
        tok, cfg, model = tiny_model(0)
        with tempfile.TemporaryDirectory() as root:
            ds = PackedFeatures(split_dir(root, tok), tok, cfg)
            ds.items = ds.items[::-1]  # rebuilt features, packed in another order
            dump = io.StringIO()
            res = evaluate.evaluate(model, ds, tok, n_per_task=3, max_new=4, log=lambda *_: None, dump=dump,
                                    ids={"text3", "formula1", "formula2", "nowhere"})
        got = sorted(json.loads(line)["id"] for line in dump.getvalue().splitlines())
        self.assertEqual(got, ["formula1", "formula2", "text3"])
        self.assertEqual({t: r["n"] for t, r in res["tasks"].items()}, {"text": 1, "formula": 2})

    def test_features_provenance_of_a_packed_split(self):
        """A gocr.pack split names no encoder itself: each task gets the one of the inputs holding it."""
        with tempfile.TemporaryDirectory() as root:
            def split(name, tasks, model):
                d = os.path.join(root, name)
                os.makedirs(d)
                with open(os.path.join(d, "index.jsonl"), "w") as f:
                    f.writelines(json.dumps({"id": f"{t}0", "task": t}) + "\n" for t in tasks)
                with open(os.path.join(d, "meta.json"), "w") as f:
                    json.dump({"vision_dim": 120, "model": model, "model_sha256": model[:2]}, f)
                return d
            base = split("tt", ["text", "table"], "base.onnx")
            enc = split("f", ["formula"], "enc.onnx")
            other = split("t2", ["text", "table"], "other.onnx")
            packed = os.path.join(root, "joint")
            os.makedirs(packed)
            with open(os.path.join(packed, "meta.json"), "w") as f:
                json.dump({"vision_dim": 120, "packed_from": [base, enc, other + ":table"]}, f)
            prov = {t: evaluate.features_provenance(packed, t) for t in ("text", "table", "formula")}
        self.assertEqual(prov["text"], {"data": packed, "packed_from": [base], "model": "base.onnx", "model_sha256": "ba"})
        self.assertEqual(prov["formula"]["model"], "enc.onnx")
        self.assertEqual((prov["table"]["model"], prov["table"]["packed_from"]), ("mixed", [base, other]))
        # a split packed with gocr.pack's per-task map: the map is taken as written
        with tempfile.TemporaryDirectory() as root:
            with open(os.path.join(root, "meta.json"), "w") as f:
                json.dump({"vision_dim": 120, "packed_from": ["gone"], "tasks": {"formula": {
                    "samples": 3, "inputs": ["gone"], "model": "enc.onnx", "model_sha256": "ab"}}}, f)
            self.assertEqual(evaluate.features_provenance(root, "formula"),
                             {"data": root, "packed_from": ["gone"], "model": "enc.onnx", "model_sha256": "ab"})

    def test_features_provenance_kept_and_checked_by_merge(self):
        tok, cfg, model = tiny_model(0)
        with tempfile.TemporaryDirectory() as root:
            d = split_dir(root, tok)
            self.assertEqual(evaluate.features_provenance(d)["model"], "unknown")  # a meta.json that names none
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"vision_dim": 120, "model": "enc.onnx", "model_sha256": "ab12"}, f)
            prov = evaluate.features_provenance(d)
            self.assertEqual(prov, {"data": d, "model": "enc.onnx", "model_sha256": "ab12"})
            ds = PackedFeatures(d, tok, cfg)
            parts = [evaluate.evaluate(model, ds, tok, n_per_task=3, max_new=4, shard=(k, 2), tasks={"text"},
                                       log=lambda *_: None) for k in range(2)]
        for p in parts:
            p["tasks"]["text"]["features"] = prov
        self.assertEqual(evaluate.merge(parts)["tasks"]["text"]["features"], prov)
        other = json.loads(json.dumps(parts[1]))
        other["tasks"]["text"]["features"]["model_sha256"] = "cd34"  # the same task read by another encoder
        with self.assertRaises(ValueError):
            evaluate.merge([parts[0], other])

    def test_compare_records_scores_as_evaluate_does(self):
        """compare_records.py rescoring the dumped reads gives evaluate.py's own per-task AR means
        (the text read rebuilt from its units), the same TPF, and counts a fixed region as better."""
        import io
        _s = importlib.util.spec_from_file_location("compare_records", os.path.join(HERE, "compare_records.py"))
        cmp = importlib.util.module_from_spec(_s)
        _s.loader.exec_module(cmp)
        tok, cfg, model = tiny_model(1)
        with tempfile.TemporaryDirectory() as root:
            d = split_dir(root, tok)
            dump = io.StringIO()
            res = evaluate.evaluate(model, PackedFeatures(d, tok, cfg), tok, n_per_task=3,
                                    max_new=6, log=lambda *_: None, dump=dump)
            recs = {(r["id"], r["task"]): r for r in map(json.loads, dump.getvalue().splitlines())}
            targets = cmp.read_targets([d])
        for (i, task), r in recs.items():
            self.assertEqual(len(r["sp_accepted"]), r["sp_rounds"])
        for task, r in res["tasks"].items():
            keys = [k for k in recs if k[1] == task]
            q = [evaluate.quality(task, cmp.read_text(recs[k], tok), targets[k])[cmp.KEY[task]] for k in keys]
            self.assertAlmostEqual(float(np.mean(q)), r["ar"][cmp.KEY[task]], places=12)
        same = cmp.compare(recs, recs, targets, tok)
        for task, r in same.items():
            self.assertEqual((r["better"], r["worse"], r["mean_change"]), (0, 0, 0.0))
            self.assertAlmostEqual(r["new"]["tpf"], res["tasks"][task]["self_spec"]["tpf"], places=12)
        k = next(k for k in recs if k[1] == "formula")
        fixed = dict(recs)
        fixed[k] = dict(recs[k], ar_ids=tok.encode(targets[k]) + [tok.eos_id])
        r = cmp.compare(recs, fixed, targets, tok)["formula"]
        self.assertEqual((r["better"], r["worse"]), (1, 0))
        self.assertGreater(r["mean_change"], 0)


if __name__ == "__main__":
    unittest.main()
