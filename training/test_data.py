"""Packed features reader, length batching/curriculum, per-line samples from synth pages."""
import json
import os
import tempfile
import unittest

import numpy as np

from gocr import data, fake_data
from gocr.model import GOCRConfig
from gocr.tokenizer import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))


class DataTest(unittest.TestCase):
    def test_reader_batches_and_lines(self):
        tok = Tokenizer.load(os.path.join(HERE, "vocab.json"))
        cfg = GOCRConfig(vocab_size=tok.vocab_size, block_size=4)
        with tempfile.TemporaryDirectory() as d:
            fake_data.make_split(os.path.join(d, "tr"), 12, seed=1, max_strips=3)
            ds = data.PackedFeatures(os.path.join(d, "tr"), tok, cfg)
            self.assertEqual(len(ds), 12)
            raw = np.fromfile(os.path.join(d, "tr", "features.f16"), dtype="<f2").reshape(-1, 120)
            s = ds.get(3)
            np.testing.assert_array_equal(s["feats"], raw[s["offset"]:s["offset"] + sum(s["strips"])])
            self.assertEqual(s["ids"], tok.encode(s["target"]))
            self.assertEqual(int(ds.lengths[3]), s["P"] + 3 * s["R"])
            # length batching under a token budget, curriculum cap grows
            bs = data.BatchStream(ds, 400, seed=0, curriculum_steps=10)
            self.assertLess(bs.cap(0), bs.cap(10))
            for step in range(5):
                b = bs.next(step)
                self.assertTrue(max(x["P"] + 3 * x["R"] for x in b) * len(b) <= 400 or len(b) == 1)
            # per-line samples: a fake "synth page" per sample, lines = target lines
            synth = os.path.join(d, "synth")
            os.makedirs(synth)
            pages = {}
            for it in ds.items:
                page, order = it["id"].rsplit("_", 1)
                lines = [{"text": t} for t in it["target"].split("\n")]
                pages.setdefault(page, []).append({"order": int(order), "lines": lines})
            # several synth runs, comma-separated: a page is read from the folder that has it (here
            # the second; the first holds another run's page)
            synth2 = os.path.join(d, "synth2")
            os.makedirs(synth2)
            with open(os.path.join(synth, "other0.json"), "w") as f:
                json.dump({"regions": []}, f)
            for page, regs in pages.items():
                with open(os.path.join(synth2, page + ".json"), "w") as f:
                    json.dump({"regions": regs}, f)
            synth = synth + "," + synth2
            multi = [it for it in ds.items if len(it["strips"]) > 1]
            n_new = data.add_line_samples(ds, synth, tok, cfg, log=lambda *_: None)
            self.assertEqual(n_new, sum(len(it["strips"]) for it in multi))
            self.assertEqual(len(ds.lengths), len(ds.items))
            line = ds.get(len(ds.items) - 1)
            parent = next(it for it in multi if line["id"].startswith(it["id"] + "#"))
            k = int(line["id"].split("#")[1])
            self.assertEqual(line["target"], parent["target"].split("\n")[k])
            self.assertEqual(line["offset"], parent["offset"] + sum(parent["strips"][:k]))
            self.assertEqual(line["strips"], [parent["strips"][k]])
            # drop_regions: the split regions go, their lines stay, single-strip samples stay
            ds2 = data.PackedFeatures(os.path.join(d, "tr"), tok, cfg)
            n2 = data.add_line_samples(ds2, synth, tok, cfg, log=lambda *_: None, drop_regions=True)
            self.assertEqual(n2, n_new)
            ids2 = {it["id"] for it in ds2.items}
            self.assertFalse(ids2 & {it["id"] for it in multi})
            self.assertEqual(len(ds2.items), len(ds.items) - len(multi))
            self.assertEqual(len(ds2.lengths), len(ds2.items))

    def test_pack_concatenates_splits(self):
        """gocr.pack: samples of every input in order, each reading the same rows as before; a
        sample whose rows are not all in its file yet (a split still being written) is left out."""
        from gocr import pack
        tok = Tokenizer.load(os.path.join(HERE, "vocab.json"))
        cfg = GOCRConfig(vocab_size=tok.vocab_size, block_size=4)
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a"), os.path.join(d, "b")
            fake_data.make_split(a, 5, seed=1)
            fake_data.make_split(b, 4, seed=2)
            with open(os.path.join(b, "features.f16"), "r+b") as f:  # b's last sample loses a row
                f.truncate(os.path.getsize(os.path.join(b, "features.f16")) - 240)
            with open(os.path.join(b, "index.jsonl"), "a") as f:
                f.write('{"id": "half-writ')
            meta = pack.pack(os.path.join(d, "ab"), [a, b])
            dsa, dsb = data.PackedFeatures(a, tok, cfg), data.PackedFeatures(b, tok, cfg)
            ab = data.PackedFeatures(os.path.join(d, "ab"), tok, cfg)
            self.assertEqual(len(dsb), 3)
            self.assertEqual(meta["samples"], 8)
            self.assertEqual([it["id"] for it in ab.items], [it["id"] for it in dsa.items + dsb.items])
            for i, (src, j) in enumerate([(dsa, j) for j in range(5)] + [(dsb, j) for j in range(3)]):
                np.testing.assert_array_equal(ab.get(i)["feats"], src.get(j)["feats"])
                self.assertEqual(ab.get(i)["target"], src.get(j)["target"])
            # a task filter per input
            with open(os.path.join(a, "index.jsonl")) as f:
                lines = [json.loads(x) for x in f]
            lines[1]["task"] = "formula"
            with open(os.path.join(a, "index.jsonl"), "w") as f:
                f.writelines(json.dumps(x) + "\n" for x in lines)
            # meta.json: per task, the inputs holding it and the encoder they name
            for x, model in ((a, "enc.onnx"), (b, "base.onnx")):
                with open(os.path.join(x, "meta.json")) as f:
                    m = json.load(f)
                with open(os.path.join(x, "meta.json"), "w") as f:
                    json.dump({**m, "model": model, "model_sha256": model[:2]}, f)
            tasks = pack.pack(os.path.join(d, "ab2"), [a, b])["tasks"]
            self.assertEqual(tasks["formula"], {"samples": 1, "inputs": [a], "model": "enc.onnx", "model_sha256": "en"})
            self.assertEqual((tasks["text"]["inputs"], tasks["text"]["model"], tasks["text"]["model_sha256"]),
                             ([a, b], "mixed", None))
            # a packed split packed again keeps its per-task encoder
            again = pack.pack(os.path.join(d, "again"), [os.path.join(d, "ab2") + ":formula"])["tasks"]
            self.assertEqual((again["formula"]["model"], again["formula"]["samples"]), ("enc.onnx", 1))
            pack.pack(os.path.join(d, "f"), [a + ":formula", b + ":table"])
            f_ds = data.PackedFeatures(os.path.join(d, "f"), tok, cfg)
            self.assertEqual([it["id"] for it in f_ds.items], [dsa.items[1]["id"]])
            np.testing.assert_array_equal(f_ds.get(0)["feats"], dsa.get(1)["feats"])
            # the row width comes from meta.json: a split without one needs vision_dim, and
            # splits of different widths are refused instead of being read at the wrong stride
            c = os.path.join(d, "c")
            fake_data.make_split(c, 2, seed=3, vision_dim=64)
            with self.assertRaisesRegex(ValueError, "different vision_dim"):
                pack.pack(os.path.join(d, "ac"), [a, c])
            os.remove(os.path.join(c, "meta.json"))
            with self.assertRaisesRegex(ValueError, "no meta.json"):
                pack.pack(os.path.join(d, "c2"), [c])
            self.assertEqual(pack.pack(os.path.join(d, "c2"), [c], vision_dim=64)["samples"], 2)

    def test_select_regions(self):
        """select_regions.py: the crops named by an eval's records, in crops order, images still
        resolving; a wanted region missing or found twice is an error."""
        import gzip
        import importlib.util
        spec = importlib.util.spec_from_file_location("select_regions", os.path.join(HERE, "select_regions.py"))
        sel = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sel)
        with tempfile.TemporaryDirectory() as d:
            for name, ids in (("a", ["p1_00", "p1_01", "p2_00"]), ("b", ["p9_00", "p9_01"])):
                os.makedirs(os.path.join(d, name, "text"))
                with open(os.path.join(d, name, "index.jsonl"), "w") as f:
                    for i in ids:
                        open(os.path.join(d, name, "text", i + ".png"), "wb").close()
                        f.write(json.dumps({"id": i, "task": "text", "target": i, "image": f"text/{i}.png"}) + "\n")
            recs = os.path.join(d, "r.jsonl.gz")
            with gzip.open(recs, "wt") as f:
                for i, t in (("p9_01", "text"), ("p1_01", "text"), ("p2_00", "formula")):
                    f.write(json.dumps({"id": i, "task": t}) + "\n")
            crops = [os.path.join(d, "a"), os.path.join(d, "b")]
            out = os.path.join(d, "sel")
            self.assertEqual(sel.select(sel.read_jsonl(recs), crops, out, {"text"}), 2)
            rows = sel.read_jsonl(os.path.join(out, "index.jsonl"))
            self.assertEqual([r["id"] for r in rows], ["p1_01", "p9_01"])
            for r in rows:
                self.assertTrue(os.path.exists(os.path.join(out, r["image"])))
            with self.assertRaisesRegex(ValueError, "not in the crops"):
                sel.select(sel.read_jsonl(recs), crops, out)  # p2_00 is text in the crops, not formula
            with self.assertRaisesRegex(ValueError, "twice"):
                sel.select(sel.read_jsonl(recs), crops + [os.path.join(d, "a")], out, {"text"})


if __name__ == "__main__":
    unittest.main()
