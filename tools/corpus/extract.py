#!/usr/bin/python3
"""Offline English corpus for the synthetic document generator.

Extracts deduplicated English sentences (40-320 chars) from Debian documentation
(linux-doc HTML, python3.11-doc HTML, the /usr/share/doc READMEs of the packages named in
readme_packages.txt) and a word list from wamerican. Output (git-ignored):
  data/corpus/sentences.txt   one sentence per line
  data/corpus/words.txt       one lowercase word per line
  data/corpus/meta.json       counts per source
Run: npm run corpus   (or /usr/bin/python3 tools/corpus/extract.py [--out DIR])
Deterministic: files are visited in sorted order; output keeps first-seen order. READMEs come
only from the pinned package list, so packages installed for other reasons do not change the corpus
(they did: two machines gave 122,106 and 121,804 sentences before the list). meta.json records the
sha256 of sentences.txt and any listed package that is missing here.
"""
import argparse, gzip, hashlib, html, json, os, re, sys
from html.parser import HTMLParser

ALLOWED = set(chr(c) for c in range(32, 127)) | set("\u2018\u2019\u201c\u201d\u2013\u2014")
BAD_SUBSTR = ("http", "www.", "::", "$", "\\", "{", "}", "<", ">", "|", "==", "->", "__", "~", "^", "`", "@", "#", "[", "]", " .", "..", "e.g", "i.e")
SENT_SPLIT = re.compile(r"(?<=[.!?])[\"\u201d\u2019)]?\s+(?=[\"\u201c(]?[A-Z])")
WS = re.compile(r"\s+")


class ParaParser(HTMLParser):
    """Collects the text of <p>, <li>, <dd> blocks, skipping code/pre/nav/script."""
    SKIP = {"pre", "code", "script", "style", "nav", "tt", "kbd", "samp", "table"}
    BLOCK = {"p", "li", "dd", "blockquote"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skip = 0
        self.depth = 0
        self.buf = []
        self.paras = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
            # a paragraph containing code is cut there (the sentence would be partial)
            if self.depth:
                self.buf.append("\x00")
        elif tag in self.BLOCK:
            self.flush()
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self.BLOCK:
            self.flush()
            self.depth = max(0, self.depth - 1)

    def handle_data(self, data):
        if self.depth and not self.skip:
            self.buf.append(data)

    def flush(self):
        if self.buf:
            self.paras.append("".join(self.buf))
        self.buf = []


def sentences_of(paragraph):
    for chunk in paragraph.split("\x00"):
        text = WS.sub(" ", chunk).strip()
        if not text:
            continue
        for s in SENT_SPLIT.split(text):
            yield s.strip()


def good(s):
    if not (40 <= len(s) <= 320):
        return False
    if not s[0].isupper() or s[-1] not in ".!?":
        return False
    if any(c not in ALLOWED for c in s):
        return False
    low = s.lower()
    if any(b in low for b in BAD_SUBSTR):
        return False
    words = s.split()
    if len(words) < 6:
        return False
    # mostly real words: letters dominate, few identifiers/paths
    letters = sum(c.isalpha() for c in s)
    if letters < 0.72 * len(s):
        return False
    odd = sum(1 for w in words if re.search(r"[_/=*]|[a-z][A-Z]|\(\)", w))
    if odd > 1:
        return False
    if s.count("(") != s.count(")") or s.count('"') % 2:
        return False
    return True


def html_files(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("_"))
        for f in sorted(files):
            if f.endswith(".html") and not f.startswith("genindex"):
                out.append(os.path.join(d, f))
    return sorted(out)


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read(2_000_000)
    except OSError:
        return ""


def readme_paragraphs(text):
    # paragraphs = blocks separated by blank lines; skip indented (code) lines
    for block in re.split(r"\n\s*\n", text):
        lines = [l for l in block.splitlines() if l.strip() and not l.startswith(("    ", "\t", "$ ", "#", "*", "-", "="))]
        if len(lines) >= 1:
            yield " ".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data/corpus")
    args = ap.parse_args()
    seen = set()
    out = []
    meta = {}

    def add(src, s):
        key = s.lower()
        if key in seen:
            return
        seen.add(key)
        out.append(s)
        meta[src] = meta.get(src, 0) + 1

    for src, root in (("linux-doc", "/usr/share/doc/linux-doc/html"), ("python3.11-doc", "/usr/share/doc/python3.11/html")):
        if not os.path.isdir(root):
            print(f"warning: {root} missing", file=sys.stderr)
            continue
        for path in html_files(root):
            p = ParaParser()
            try:
                p.feed(read_text(path))
                p.close()
            except Exception:
                continue
            p.flush()
            for para in p.paras:
                for s in sentences_of(para):
                    if good(s):
                        add(src, s)
    readmes = []
    base = "/usr/share/doc"
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "readme_packages.txt"), encoding="utf-8") as fh:
        pinned = sorted({ln.strip() for ln in fh if ln.strip() and not ln.startswith("#")})
    missing = []
    if os.path.isdir(base):
        for pkg in pinned:
            d = os.path.join(base, pkg)
            if not os.path.isdir(d):
                missing.append(pkg)
                continue
            for f in sorted(os.listdir(d)):
                if f.upper().startswith("README") and not f.endswith((".html", ".html.gz")):
                    readmes.append(os.path.join(d, f))
    for path in readmes:
        for para in readme_paragraphs(read_text(path)):
            for s in sentences_of(para):
                if good(s):
                    add("readme", s)

    words = []
    wpath = "/usr/share/dict/american-english"
    if os.path.exists(wpath):
        with open(wpath, encoding="utf-8", errors="replace") as fh:
            wseen = set()
            for w in fh:
                w = w.strip()
                if re.fullmatch(r"[a-z]{3,12}", w) and w not in wseen:
                    wseen.add(w)
                    words.append(w)
    meta["words"] = len(words)
    if len(out) < 1000:
        print(f"error: only {len(out)} sentences extracted; are linux-doc/python3.11-doc installed?", file=sys.stderr)
        sys.exit(1)
    os.makedirs(args.out, exist_ok=True)
    text = "\n".join(out) + "\n"
    with open(os.path.join(args.out, "sentences.txt"), "w", encoding="utf-8") as fh:
        fh.write(text)
    with open(os.path.join(args.out, "words.txt"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(words) + "\n")
    meta["sentences"] = len(out)
    meta["sentences_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if missing:
        meta["readme_packages_missing"] = missing
        print(f"warning: {len(missing)} pinned README packages missing ({', '.join(missing)}); "
              "the corpus will differ from the committed models' one", file=sys.stderr)
    with open(os.path.join(args.out, "meta.json"), "w") as fh:
        json.dump(meta, fh, indent=1, sort_keys=True)
    print(json.dumps(meta, sort_keys=True))


if __name__ == "__main__":
    main()
