#!/usr/bin/env python3
"""Every README or docs section that a comment, message or doc cites must exist (CTest
`docs_references_exist`, label `docs`).

Usage: check_doc_references.py [--verbose] [REPO_ROOT]   (default: two folders above this script;
       --verbose lists every citation and the section it found)

Scanned: every text file under model/, firmware/, hal/, host_sim/, tests/, scripts/,
toolchains/, docs/ and .ci/, and README.md, CMakeLists.txt and the *.cmake, *.toml, *.py, *.md,
*.hpp, *.cpp, *.h files at the top (never build/ or .git/, nor this script, whose examples
below would cite themselves). Comment markers (// /* * #) are stripped and a comment's lines
joined, so a citation may wrap over lines; \\" in a C++ string counts as a quote.

Citation forms checked (NAME is a section name, FILE a path such as docs/firmware.md):

  README "NAME"    README.md "NAME"    README's "NAME"    README \\"NAME\\" (in a C++ string)
  README, *NAME*   README (*NAME*)     README §N          README#anchor
  README's NAME section   README NAME table   (README, NAME)     loose: NAME is lower-case
                                                          words that some README heading holds
  FILE             FILE, *NAME*        FILE (*NAME*)      FILE, *NAME*, *NAME2*
  FILE, "NAME"     FILE ("NAME")       FILE#anchor        [text](FILE) and [text](FILE#anchor)
  docs/model_contact.md §4.5, FILE, §4.5, FILE §4.7 / §10.18: a heading that begins with that
                   number ("### 4.5 ..."); in a Markdown file with numbered headings a bare §4.5
                   (not after "spec" or "paper") names a section of that file
  *NAME* above / *NAME*, *NAME2* below  (in a Markdown file: a section of the same file)

FILE is README.md, a docs/*.md file or any other repository Markdown file cited with its
folder (tests/goldens/README.md); a cited file that does not exist fails. Markdown links are
resolved relative to the citing file. A file listed in NOT_YET is checked only once it exists
(until then its citations are counted and skipped with a note).

The model pages (docs/model.md, the index, and docs/model_*.md) number their sections across the
pages, each number on one page. A citation of a model page by a number that another model page
holds fails and names that page; so does a bare §N in a model page whose section is on a sibling
page (write the page: docs/model_contact.md §4.7).

A section NAME exists in a file when, compared case-insensitively without Markdown markup and
trailing punctuation, it equals one of the file's section names or their first words. Section
names: Markdown headings (# or underlined), bold run-in headings (a line that begins with
**NAME**, also as a list item) and italic run-in names (*NAME* followed by ':' or '.'). So
"Segment geometry" names "## Segment geometry: the arc gap (...)" and "Slip direction" names
"**Slip direction of a segment without deflection**".
A README section whose heading names the docs file that now holds its details
("### Firmware (docs/firmware.md)") is only a summary: citing it fails, pointing to that file.

Figures tied to a test: for each row of TIES, the value a doc states (DOC_REGEX in DOC) must
equal the value a test enforces (SOURCE_REGEX in SOURCE, and ENFORCER must use it): the README's
Cortex-M7 memory budgets against cortex_m7_firmware_memory_budget's FLASH_LIMIT / RAM_LIMIT, and
the README's validation table (paper values and limits) against scripts/validate_paper.py's checks.
Every model/ header is named in the README's folder map, and one over 500 lines (counted here) says
why it is one idea there ("long because ..."); the folder map states no line counts, which go stale.
Every docs/*.md has at most MAX_DOC_LINES lines: a longer page is split by concept.

Output: one line per broken citation ("path:line: cites FILE section 'NAME', which does not
exist (sections there: closest matches)") and exit status 1, or the number of citations checked
and exit status 0.
"""
import difflib
import os
import re
import sys
from bisect import bisect_right

SCAN_DIRS = ("model", "firmware", "hal", "host_sim", "tests", "scripts", "toolchains", "docs", ".ci")
TOP_FILES = ("README.md", "CMakeLists.txt")
TOP_EXTENSIONS = (".cmake", ".toml", ".py", ".md", ".hpp", ".cpp", ".h")
SKIP_DIRS = {"build", ".git"}
C_LIKE = (".hpp", ".cpp", ".h", ".c", ".cc", ".ld")
NOT_YET = set()  # cited files that are being written: skipped with a note while missing
MODEL_PAGE = re.compile(r"^docs/model(?:_[\w-]+)?\.md$")  # the index docs/model.md and its pages
MAX_DOC_LINES = 400  # lines of a docs/*.md page
LONG_HEADER = 500  # lines of a model/ header whose folder-map entry says why it is one idea
SELF = "tests/docs/check_doc_references.py"

# (what, doc file, regex of the stated figure in it (value, unit), source file, regex of the
#  enforced value (bytes), enforcing script, regex that shows the script compares with it)
TIES = (
    ("the Cortex-M7 flash budget",
     "README.md", r"Cortex-M7 memory:.{0,300}?budgets?\b(?:.{0,80}?flash ≤ | )([\d.]+) (KiB|MiB)",
     "tests/CMakeLists.txt", r"add_test\(NAME cortex_m7_firmware_memory_budget\b.*?-DFLASH_LIMIT=(\d+)",
     "tests/cmake/check_memory_budget.cmake", r"flash GREATER FLASH_LIMIT"),
    ("the Cortex-M7 RAM budget",
     "README.md", r"Cortex-M7 memory:.{0,300}?budgets?\b(?:.{0,80}?RAM ≤ | )([\d.]+) (KiB|MiB)",
     "tests/CMakeLists.txt", r"add_test\(NAME cortex_m7_firmware_memory_budget\b.*?-DRAM_LIMIT=(\d+)",
     "tests/cmake/check_memory_budget.cmake", r"ram GREATER RAM_LIMIT"),
)
UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 * 1024}
# The validation table's rows (README, *Validation*) against the checks of scripts/validate_paper.py
# that print them: (row label in the table, the check's name there). The table's paper value and
# limit must be the check's reference and tolerance.
VALIDATION_ROWS = (
    ("tight span force F1", "F1 tight span force [N]"),
    ("slack span force F2", "F2 slack span force [N]"),
    ("drive torque τ_P1", "drive torque [N m]"),
    ("ω_P2", "omega_P2 [rad/s]"),
)
# Words that make "README <words> section" prose rather than a section name.
STOP_WORDS = {"or", "and", "the", "a", "an", "of", "in", "its", "each", "every", "which", "that"}

ITALIC = r"(?<![*\w])\*(?![\s*])([^*]+?)(?<![\s*])\*(?![*\w])"
MD_PATH = r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\b"
README = r"(?<![\w/.-])README(?:\.md)?(?![\w-])"


def text_files(root):
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if os.path.isfile(path) and (name in TOP_FILES or name.endswith(TOP_EXTENSIONS)):
            yield name
    for top in SCAN_DIRS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(files):
                yield os.path.relpath(os.path.join(folder, name), root)


def read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def joined(rel, text):
    """The file's lines without comment markers, joined by spaces; and each line's start."""
    md = rel.endswith(".md")
    c_like = rel.endswith(C_LIKE)
    parts, starts, pos = [], [], 0
    for line in text.split("\n"):
        s = line.strip()
        if not md:
            if c_like:
                s = re.sub(r"^(?://+!?|/\*+|\*+(?!/))\s?", "", s)
            else:
                s = re.sub(r"^#+!?\s?", "", s)
        s = s.replace('\\"', ' "')  # a quote escaped in a C++ or Python string
        starts.append(pos)
        parts.append(s)
        pos += len(s) + 1
    return " ".join(parts), starts


def norm(name):
    s = name.replace("’", "'").replace("`", "").replace("**", "").replace("*", "")
    s = re.sub(r"\s+", " ", s).strip().lower()
    return s.rstrip(".:;, ")


def slug(title):
    s = title.strip().lower().replace("`", "").replace("*", "")
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


class Doc:
    def __init__(self, rel, text):
        self.rel = rel
        self.sections = []  # (title, kind, line)
        self.numbered = {}  # "4.5" -> title
        self.anchors = set()
        lines = text.split("\n")
        fence = False
        for i, line in enumerate(lines):
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            if fence:
                continue
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            title = None
            if m:
                title = m.group(1)
            elif i + 1 < len(lines) and line.strip() and re.match(r"^(=+|-+)\s*$", lines[i + 1]) \
                    and not line.lstrip().startswith(("|", "-", "*")):
                title = line.strip()
            if title is not None:
                self.sections.append((title, "heading", i + 1))
                n = re.match(r"^§?\s*(\d+(?:\.\d+)*)\.?(?:\s|$)", title)
                if n:
                    self.numbered.setdefault(n.group(1), title)
                base = slug(title)
                a, k = base, 1
                while a in self.anchors:
                    a, k = f"{base}-{k}", k + 1
                self.anchors.add(a)
                continue
            m = re.match(r"^\s*(?:[-+*]\s+|\d+\.\s+)?\*\*(.+?)\*\*", line)
            if m:
                self.sections.append((m.group(1), "bold", i + 1))
            for m in re.finditer(ITALIC + r"(?=\s*[:.])", line):
                self.sections.append((m.group(1), "italic", i + 1))

    def find(self, name):
        want = norm(name)
        if not want:
            return None
        for title, kind, line in self.sections:
            have = norm(title)
            if have == want:
                return title
            if have.startswith(want) and re.match(r"[\s:(,.;—–]", have[len(want):]):
                return title
        return None

    def find_loose(self, phrase):
        """A heading (any kind) that holds every word of the phrase."""
        words = norm(phrase).split()
        for title, kind, line in self.sections:
            have = norm(title)
            if all(re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", have) for w in words):
                return title
        return None

    def closest(self, name, n=4):
        titles = [norm(t) for t, k, l in self.sections]
        originals = {norm(t): t for t, k, l in reversed(self.sections)}
        close = difflib.get_close_matches(norm(name), titles, n=n, cutoff=0.35)
        if not close:
            close = [norm(t) for t, k, l in self.sections if k == "heading"][:6]
        seen = []
        for c in close:
            if originals[c] not in seen:
                seen.append(originals[c])
        return "; ".join(seen) if seen else "none"


class Checker:
    def __init__(self, root, verbose=False):
        self.root = root
        self.verbose = verbose
        self.docs = {}
        self.errors = []
        self.checked = 0
        self.skipped = {}

    def doc(self, rel):
        if rel not in self.docs:
            path = os.path.join(self.root, rel)
            text = read_text(path) if os.path.isfile(path) else None
            self.docs[rel] = Doc(rel, text) if text is not None else None
        return self.docs[rel]

    def log(self, where, what, found):
        if self.verbose:
            print(f"{where}: {what} -> {found if found else 'MISSING'}")

    def target(self, where, cited):
        """The Doc of a cited file, or None (reported, or skipped while it is being written)."""
        self.checked += 1
        d = self.doc(cited)
        if d is None:
            if cited in NOT_YET:
                self.skipped[cited] = self.skipped.get(cited, 0) + 1
                self.log(where, cited, "skipped (not written yet)")
            else:
                self.log(where, cited, None)
                self.errors.append(f"{where}: cites {cited}, which does not exist")
        return d

    def file(self, where, cited):
        if self.target(where, cited) is not None:
            self.log(where, cited, "file exists")

    def section(self, where, cited, name):
        name = name.strip()
        d = self.target(where, cited)
        if d is None:
            return
        title = d.find(name)
        self.log(where, f"{cited} section '{name}'", title)
        if title is None:
            self.errors.append(f"{where}: cites {cited} section '{name}', which does not exist "
                               f"(sections there: {d.closest(name)})")
            return
        moved = re.search(r"\((docs/[\w.-]+\.md)\)", title) if cited == "README.md" else None
        if moved:
            self.errors.append(f"{where}: cites {cited} section '{name}', which only summarises "
                               f"{moved.group(1)}: cite {moved.group(1)} and its section there")

    def loose(self, where, cited, phrase):
        d = self.target(where, cited)
        if d is None:
            return
        title = d.find_loose(phrase)
        self.log(where, f"{cited} section '{phrase}' (loose)", title)
        if title is None:
            self.errors.append(f"{where}: cites {cited} section '{phrase}', which does not exist "
                               f"(sections there: {d.closest(phrase)})")

    def model_pages(self):
        """The model pages (docs/model.md and docs/model_*.md) that exist."""
        folder = os.path.join(self.root, "docs")
        names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        return [f"docs/{n}" for n in names if MODEL_PAGE.match(f"docs/{n}")]

    def holder(self, cited, number):
        """The sibling model page that holds section §number, or None."""
        if not MODEL_PAGE.match(cited):
            return None
        for page in self.model_pages():
            d = self.doc(page)
            if page != cited and d is not None and number in d.numbered:
                return page
        return None

    def numbered(self, where, cited, number, bare=False):
        d = self.target(where, cited)
        if d is None:
            return
        self.log(where, f"{cited} section '§{number}'", d.numbered.get(number))
        if number not in d.numbered:
            page = self.holder(cited, number)
            if page is not None:
                what = f"a bare §{number}" if bare else f"{cited} section '§{number}'"
                self.errors.append(f"{where}: cites {what}, which is on {page}: write "
                                   f"'{page} §{number}'")
                return
            near = sorted(d.numbered, key=lambda k: [int(p) for p in k.split(".")])
            near = [k for k in near if k.split(".")[0] == number.split(".")[0]] or near
            self.errors.append(f"{where}: cites {cited} section '§{number}', which does not exist "
                               f"(sections there: {', '.join(near[:12]) or 'no numbered headings'})")

    def anchor(self, where, cited, anchor):
        d = self.target(where, cited)
        if d is None:
            return
        found = anchor.lower() in d.anchors
        self.log(where, f"{cited} section '#{anchor}'", "#" + anchor.lower() if found else None)
        if not found:
            close = difflib.get_close_matches(anchor.lower(), sorted(d.anchors), n=4, cutoff=0.35)
            self.errors.append(f"{where}: cites {cited} section '#{anchor}', which does not exist "
                               f"(sections there: {'; '.join('#' + c for c in close) or 'none close'})")

    def known_md(self, path):
        """The repository path of a cited Markdown file, or None when it is not a repository path."""
        first = path.split("/")[0]
        if path == "README.md" or (("/" in path) and os.path.isdir(os.path.join(self.root, first))
                                   and first not in SKIP_DIRS):
            return os.path.normpath(path)
        return None

    def scan(self, rel, text):
        flat, starts = joined(rel, text)
        used = []  # spans already checked as part of a longer form

        def where(offset):
            return f"{rel}:{bisect_right(starts, offset)}"

        def claim(m):
            used.append((m.start(), m.end()))

        def free(m):
            return not any(a <= m.start() < b for a, b in used)

        # README citations.
        after = r"(?:'s)?\s*(?:,\s*|\(\s*)?"
        for m in re.finditer(README + after + r'"([^"\n]{1,80})"', flat):
            claim(m)
            self.section(where(m.start()), "README.md", m.group(1))
        for m in re.finditer(README + after + ITALIC, flat):
            claim(m)
            self.section(where(m.start()), "README.md", m.group(1))
        for m in re.finditer(README + r"\s*§\s*(\d+(?:\.\d+)*)", flat):
            claim(m)
            self.numbered(where(m.start()), "README.md", m.group(1))
        for m in re.finditer(README + r"#([\w-]+)", flat):
            claim(m)
            self.anchor(where(m.start()), "README.md", m.group(1))
        loose = (r"'s\s+((?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)\s+section\b",  # README's set-up section
                 r"\s+((?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)\s+table\b",  # README convergence table
                 r",\s+([a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3})\s*\)")  # (README, segment geometry)
        for m in (m for form in loose for m in re.finditer(README + form, flat)):
            if free(m) and not STOP_WORDS & set(m.group(1).split()):
                claim(m)
                self.loose(where(m.start()), "README.md", m.group(1))

        # Citations of a Markdown file by its path, with or without a section.
        for m in re.finditer(MD_PATH, flat):
            cited = self.known_md(m.group(1))
            if cited is None or not free(m):
                continue
            rest = flat[m.end():]
            w = where(m.start())
            s = re.match(r",?\s*§\s*(\d+(?:\.\d+)*)", rest)
            if s:  # docs/model_contact.md §4.7, also chained: §4.7 / §10.18, §4.7 and §4.9
                numbers, tail = [s.group(1)], rest[s.end():]
                while True:
                    t = re.match(r"\s*(?:,|/|and|or)\s*§\s*(\d+(?:\.\d+)*)", tail)
                    if not t:
                        break
                    numbers.append(t.group(1))
                    tail = tail[t.end():]
                for number in numbers:
                    self.numbered(w, cited, number)
                used.append((m.start(), m.end() + len(rest) - len(tail)))
                continue
            s = re.match(r"#([\w-]+)", rest)
            if s:
                self.anchor(w, cited, s.group(1))
                continue
            s = re.match(r"(?:,\s*|\s*\(\s*)" + ITALIC, rest)
            if s:
                names = [s.group(1)]
                tail = rest[s.end():]
                while True:
                    t = re.match(r"(?:,\s*|\s+and\s+)" + ITALIC, tail)
                    if not t:
                        break
                    names.append(t.group(1))
                    tail = tail[t.end():]
                for name in names:
                    self.section(w, cited, name)
                used.append((m.start(), m.end() + len(rest) - len(tail)))
                continue
            s = re.match(r'(?:,\s*|\s*\(\s*)"([^"\n]{1,80})"', rest)
            if s:
                self.section(w, cited, s.group(1))
                continue
            self.file(w, cited)

        # Markdown links relative to the citing file: [text](path.md) and [text](path.md#anchor).
        if rel.endswith(".md"):
            for m in re.finditer(r"\]\(([^)\s#]*\.md)?(#[^)\s]+)?\)", text):
                link, anchor = m.group(1), m.group(2)
                if link is None and anchor is None:
                    continue
                cited = os.path.normpath(os.path.join(os.path.dirname(rel), link)) if link else rel
                if link and link == cited and not anchor:
                    continue  # a repository path: checked above
                w = f"{rel}:{text.count(chr(10), 0, m.start()) + 1}"
                if anchor:
                    self.anchor(w, cited, anchor[1:])
                else:
                    self.file(w, cited)

            # A numbered section of the same file (a file with numbered headings, and every model
            # page): a bare §4.5 that follows no cited file and no "spec" or "paper". In a model
            # page it must be a section of that page, not of a sibling.
            if self.doc(rel) is not None and (self.doc(rel).numbered or MODEL_PAGE.match(rel)):
                bare = r"(?<![\w/.-])((?:spec|paper|Spec|Paper),?\s+)?§\s*(\d+(?:\.\d+)*)"
                for m in re.finditer(bare, flat):
                    if m.group(1) is None and free(m):
                        self.numbered(where(m.start()), rel, m.group(2), bare=True)

            # A section of the same file: *NAME* above, *NAME*, *NAME2* below.
            names = r"((?:" + ITALIC + r"(?:,\s*|\s+and\s+|\s+or\s+))*" + ITALIC + r")"
            for m in re.finditer(names + r"\s+(?:above|below)\b", flat):
                if not free(m):
                    continue
                for name in re.findall(ITALIC, m.group(1)):
                    self.section(where(m.start()), rel, name)

    def ties(self):
        for what, doc, doc_re, src, src_re, enforcer, enforcer_re in TIES:
            self.checked += 1
            doc_text = read_text(os.path.join(self.root, doc)) or ""
            src_text = read_text(os.path.join(self.root, src)) or ""
            enf_text = read_text(os.path.join(self.root, enforcer)) or ""
            e = re.search(src_re, src_text, re.S)
            if e is None:
                self.errors.append(f"{src}: no longer enforces {what} in the form the docs check "
                                   f"expects ({src_re}): update TIES in tests/docs/check_doc_references.py")
                continue
            src_line = src_text.count("\n", 0, e.start(1)) + 1
            if re.search(enforcer_re, enf_text) is None:
                self.errors.append(f"{enforcer}: does not compare against {what} ({enforcer_re})")
            d = re.search(doc_re, doc_text, re.S)
            if d is None:
                self.errors.append(f"{doc}: does not state {what} ({doc_re}); {src}:{src_line} "
                                   f"enforces {int(e.group(1)) // 1024} KiB")
                continue
            stated = float(d.group(1)) * UNITS[d.group(2)]
            enforced = int(e.group(1))
            if stated != enforced:
                doc_line = doc_text.count("\n", 0, d.start(1)) + 1
                self.errors.append(f"{doc}:{doc_line}: states {what} as {d.group(1)} {d.group(2)}, but "
                                   f"{src}:{src_line} enforces {enforced} B = {enforced / 1024:g} KiB")

    def run(self):
        for rel in text_files(self.root):
            if rel == SELF:
                continue
            text = read_text(os.path.join(self.root, rel))
            if text is not None:
                self.scan(rel, text)
        self.ties()


# Documents outside the repository that sources must not cite any more (issue 50): the external
# specification and the papers by their file names. The model pages hold the model; their index,
# docs/model.md, names the papers ([P], [D], [B] under *References*).
RETIRED = (
    (re.compile(r"\b[Ss]pec §"), "cite the model page's section (docs/model_contact.md §N; docs/model.md "
                                  "lists the pages) instead of the external specification"),
    (re.compile(r"\bseeds? 00\d\b"), "cite the paper as [P] (docs/model.md, *References*), not by its seed file"),
)


def retired_citations(root):
    errors = []
    for rel in text_files(root):
        if rel == "tests/docs/check_doc_references.py":
            continue
        text = read_text(os.path.join(root, rel))
        for number, line in enumerate((text or "").splitlines(), 1):
            for pattern, hint in RETIRED:
                if pattern.search(line):
                    errors.append(f"{rel}:{number}: {hint}: {line.strip()[:100]}")
    return errors


def validation_table_ties(root):
    """The README's validation table states the paper's values and limits that validate_paper.py checks."""
    readme = read_text(os.path.join(root, "README.md")) or ""
    script = read_text(os.path.join(root, "scripts", "validate_paper.py")) or ""
    errors = []
    for label, check in VALIDATION_ROWS:
        row = re.search(r"^\| " + re.escape(label) + r"[^|]*\|[^|]*\| ([\d.]+) [^|]*\|[^|]*\| ([\d.]+) % \|$", readme, re.M)
        src = re.search(r'\("' + re.escape(check) + r'", \w+, ([\d.]+), ([\d.]+)\)', script)
        if row is None or src is None:
            where = "README.md's validation table" if row is None else "scripts/validate_paper.py"
            errors.append(f"{where}: no row for {label!r} / check {check!r} in the form the docs check expects")
            continue
        paper, limit = float(row.group(1)), float(row.group(2)) / 100.0
        reference, tolerance = float(src.group(1)), float(src.group(2))
        if paper != reference or abs(limit - tolerance) > 1e-12:
            errors.append(f"README.md: validation row {label!r} states {paper} within {100 * limit:g} %, "
                          f"scripts/validate_paper.py checks {reference} within {100 * tolerance:g} %")
    return errors


def folder_map_gaps(root):
    """Every model/ header is named in the README's folder map; one over LONG_HEADER lines says why
    it is one idea there ("long because ..."); the folder map states no line counts."""
    readme = read_text(os.path.join(root, "README.md")) or ""
    start = readme.find("## Folder map")
    section = readme[start:readme.find("\n## ", start + 1)] if start >= 0 else ""
    errors = []
    row = re.search(r"^\| `model/` \|.*$", section, re.M)  # the row that names the headers
    for m in re.finditer(r"\b\d[\d,]*\s+lines\b", row.group(0) if row else ""):
        errors.append(f"README.md:{readme.count(chr(10), 0, start + row.start() + m.start()) + 1}: the folder map "
                      f"states a line count ('{m.group(0)}'): say why the header is one idea instead (counts go stale)")
    base = os.path.join(root, "model", "include", "beltsim")
    for folder in sorted(os.listdir(base)):
        for name in sorted(os.listdir(os.path.join(base, folder))):
            if not name.endswith(".hpp"):
                continue
            if f"`{name}`" not in section:
                errors.append(f"README.md: the folder map does not name model/ header {folder}/{name}")
                continue
            with open(os.path.join(base, folder, name), encoding="utf-8") as f:
                lines = sum(1 for _ in f)
            entry = section[section.find(f"`{name}`"):]
            entry = entry[:entry.find(")") + 1]
            if lines > LONG_HEADER and "long because" not in entry:
                errors.append(f"README.md: {folder}/{name} has {lines} lines (over {LONG_HEADER}); its folder-map "
                              f"entry must say why it is one idea ('long because ...')")
    return errors


def long_docs(root):
    """Every docs/*.md page has at most MAX_DOC_LINES lines."""
    folder = os.path.join(root, "docs")
    errors = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not name.endswith(".md"):
            continue
        text = read_text(os.path.join(folder, name)) or ""
        lines = len(text.splitlines())
        if lines > MAX_DOC_LINES:
            errors.append(f"docs/{name}: {lines} lines, more than the {MAX_DOC_LINES} a docs page may have: "
                          f"split it by concept")
    return errors


# ---- the Cortex-M7 figures (docs/cortex_m7_figures.json, written by scripts/cortex_m7_figures.py) ----
FIGURES_FILE = "docs/cortex_m7_figures.json"
FIGURES_PAGE = "docs/firmware.md"
FIGURES_BEGIN, FIGURES_END = "<!-- cortex_m7_figures: begin -->", "<!-- cortex_m7_figures: end -->"


def figures_table(fig):
    """The Markdown table of docs/firmware.md, *Measured figures*, from the figures file."""
    m, s = fig["product_image"], fig["scripted_run_instructions_per_step"]
    parts = m["ram_parts_bytes"]
    rows = [
        "| figure | value |",
        "|---|---|",
        f"| flash, product image | {m['flash_bytes']:,} B |",
        f"| RAM, product image: data + bss + noinit + fault record + stack bound | {m['ram_bytes']:,} B "
        f"({parts['data']:,} + {parts['bss']:,} + {parts['noinit']:,} + {parts['fault_record']:,} + "
        f"{parts['stack_bound']:,}) |",
        f"| step code (functions reachable from the tick); RAM + step code | {m['step_code_bytes']:,} B; "
        f"{m['ram_bytes'] + m['step_code_bytes']:,} B |",
        f"| instructions per step, `firmware_scripted_run` ({s['steps']} steps): min, median, p99, max, mean | "
        f"{s['min']:,}, {s['median']:,}, {s['p99']:,}, **{s['max']:,}**, {s['mean']:,} |",
        f"| worst / median | {s['max'] / s['median']:.3f} |",
    ]
    return "\n".join(rows)


def write_figures_table(root, fig):
    path = os.path.join(root, FIGURES_PAGE)
    text = read_text(path)
    a, b = text.index(FIGURES_BEGIN) + len(FIGURES_BEGIN), text.index(FIGURES_END)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:a] + "\n" + figures_table(fig) + "\n" + text[b:])


def figure_strings(fig):
    """The file's large figures (byte counts and instruction counts of 100,000 or more) as the docs
    would write them: 1,234,567 and 1234567 and 1.235 M."""
    out = set()

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, int) and v >= 100000:
            out.update({f"{v:,}", str(v), f"{v / 1e6:.3f} M"})
    walk({k: v for k, v in fig.items() if k != "about"})
    return out


def cortex_m7_figure_ties(root):
    """The figures table of docs/firmware.md equals the figures file, and no other page restates a
    Cortex-M7 measurement: a figure of the file anywhere, or a line on the Cortex-M7 with a byte
    count or a count in millions (a stale figure)."""
    import json
    try:
        fig = json.load(open(os.path.join(root, FIGURES_FILE)))
    except (OSError, ValueError) as e:
        return [f"{FIGURES_FILE}: cannot be read ({e})"]
    errors = []
    page = read_text(os.path.join(root, FIGURES_PAGE)) or ""
    if FIGURES_BEGIN not in page or FIGURES_END not in page:
        return [f"{FIGURES_PAGE}: the markers of the Measured figures table are missing"]
    a, b = page.index(FIGURES_BEGIN), page.index(FIGURES_END)
    if page[a + len(FIGURES_BEGIN):b].strip() != figures_table(fig):
        errors.append(f"{FIGURES_PAGE}: the Measured figures table differs from {FIGURES_FILE} "
                      f"(scripts/cortex_m7_figures.py write writes both)")
    known = figure_strings(fig)
    stale = re.compile(r"\b\d{1,3}(?:,\d{3})+ (?:B|bytes)\b|\b\d\.\d{2,3} M\b")
    pages = ["README.md"] + [os.path.join("docs", n) for n in sorted(os.listdir(os.path.join(root, "docs")))
                             if n.endswith(".md")]
    for rel in pages:
        text = read_text(os.path.join(root, rel)) or ""
        if rel == FIGURES_PAGE:  # the table itself is the file's; blanked, its lines kept
            text = text[:a] + re.sub(r"[^\n]", " ", text[a:b]) + text[b:]
        for number, line in enumerate(text.split("\n"), 1):
            for s in sorted(known):
                if re.search(r"(?<![\d,.])" + re.escape(s) + r"(?![\d,])", line):
                    errors.append(f"{rel}:{number}: restates the Cortex-M7 figure {s} of {FIGURES_FILE}: "
                                  f"cite {FIGURES_PAGE}, *Measured figures*")
            if "Cortex-M7" in line:
                for m in stale.finditer(line):
                    errors.append(f"{rel}:{number}: a Cortex-M7 measurement ({m.group(0)}) outside "
                                  f"{FIGURES_FILE}: cite {FIGURES_PAGE}, *Measured figures*")
    return errors


def main():
    args = [a for a in sys.argv[1:] if a != "--verbose"]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", ".."))
    c = Checker(root, verbose="--verbose" in sys.argv[1:])
    c.run()
    c.errors.extend(retired_citations(root))
    c.errors.extend(folder_map_gaps(root))
    c.errors.extend(long_docs(root))
    c.errors.extend(cortex_m7_figure_ties(root))
    c.errors.extend(validation_table_ties(root))
    c.checked += len(VALIDATION_ROWS)
    for cited, n in sorted(c.skipped.items()):
        print(f"note: {cited} does not exist yet: {n} citation(s) of it not checked")
    for e in c.errors:
        print(e)
    if c.errors:
        print(f"{len(c.errors)} broken of {c.checked} citations and ties checked")
        return 1
    print(f"{c.checked} citations and ties checked, none broken")
    return 0


if __name__ == "__main__":
    sys.exit(main())
