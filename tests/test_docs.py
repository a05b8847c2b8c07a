"""The docs cannot drift from the code (issue 29, "Decisions you can find": each decision
stating the question, the choice, the reason and its test; the layout the docs describe is the
one in the repository)."""

from __future__ import annotations

import re
from pathlib import Path

from ledger.roles import MAY, Role

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "docs" / "decisions.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
CITING = ("ledger", "projections", "tests", "scripts")
TOP = ("ledger", "projections", "scripts", "tests", "docs", "examples")
FAMILIES = ("uschess", "fide", "icu")


def norm(text: str) -> str:
    """A heading or a quoted one, compared without code marks, ellipses and punctuation."""
    text = text.replace("`", "").replace("’", "'").replace("…", "").replace("...", "")
    return re.sub(r"\s+", " ", text).strip(" ,.;:").casefold()


def decision_names() -> list[str]:
    """Every heading and every bold lead of a bullet in docs/decisions.md."""
    text = DECISIONS.read_text(encoding="utf-8")
    names = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
    names += re.findall(r"^\s*- \*\*(.+?)\*\*", text, re.M)
    return [norm(name) for name in names]


def citations() -> list[tuple[str, str]]:
    """Each heading the code, tests and scripts quote after naming the decisions file:
    (file, quote).

    A comment's continuation lines are joined first, so a quote broken over lines reads whole.
    """
    found = []
    for folder in CITING:
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            flat = re.sub(r"\n[ \t]*(#[ \t]*)?", " ", text)
            for match in re.finditer(r"decisions\.md", flat):
                tail = flat[match.end() : match.end() + 200]
                quoted = re.match(r'(?:\)?,|\s*\(|\s)\s*((?:"[^"]+"(?:\s*(?:and|,)\s*)?)+)', tail)
                for quote in re.findall(r'"([^"]+)"', quoted.group(1)) if quoted else []:
                    found.append((str(path.relative_to(ROOT)), quote))
    return found


def written_paths(text: str) -> set[str]:
    """Every repository path a document writes: `ledger/…/x.py`, `projections/x.py`,
    `scripts/x`, a folder (`ledger/writes/`), a glob (`trf*.py`) or a family placeholder."""
    top = "|".join(TOP)
    pattern = rf"(?<![\w/.-])((?:{top})/[\w./*<>…-]*)"
    return {m.rstrip(".,;:…") for m in re.findall(pattern, text)}


def exists(path: str) -> bool:
    """Whether a written path names something in the repository (`…` ends at its folder)."""
    path = path.split("…")[0]
    if "<family>" in path:
        return any(exists(path.replace("<family>", name)) for name in FAMILIES)
    if "*" in path:
        return any(ROOT.glob(path.rstrip("/")))
    return (ROOT / path).exists()


def test_every_decision_the_code_cites_is_a_heading_or_bold_lead_of_the_decisions():
    # "Decisions you can find": a heading quoted after the decisions file's name is there.
    names = decision_names()
    missing = [(f, q) for f, q in citations() if not any(norm(q) in name for name in names)]
    assert not missing
    assert len(citations()) > 30  # the citations are found at all


def test_every_path_the_architecture_page_writes_exists():
    # "Decisions you can find" and "a layout that shows the layers": the page that says where
    # things are names only paths that are there.
    paths = written_paths(ARCHITECTURE.read_text(encoding="utf-8"))
    assert not sorted(p for p in paths if not exists(p))
    assert len(paths) > 50  # the paths are found at all


def test_the_decisions_contents_list_every_section():
    # "its contents list 16 of 41 sections": now every section's heading is in the contents.
    text = DECISIONS.read_text(encoding="utf-8")
    contents = text.split("## Contents", 1)[1].split("\n## ", 1)[0]
    listed = {norm(t) for t in re.findall(r"\[(.+?)\]\(#", contents)}
    headings = [norm(h) for h in re.findall(r"^#{2,4} (.+)$", text, re.M)]
    assert not [h for h in headings if h not in listed and h != "contents"]


def test_every_test_a_decision_names_exists():
    # "each decision stating the question, the choice, the reason and its test": the test it
    # names (a file under tests/, or a test function) is there to run.
    text = DECISIONS.read_text(encoding="utf-8")
    files = {p.rstrip(".") for p in re.findall(r"tests/[\w./*]+\.py", text)}
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    functions = set(re.findall(r"\b(test_\w+[a-z0-9])\b(?!\.py)", text))
    assert not sorted(f for f in files if not any(ROOT.glob(f)))
    assert not sorted(f for f in functions if f"def {f}(" not in sources)
    assert len(files) > 20 and len(functions) > 20  # the tests are found at all


def may_use(role: Role) -> set[str]:
    """The verbs `ledger.roles.MAY` lets `role` use."""
    return {str(verb) for verb, may in MAY.items() if role in may}


def test_the_readme_roles_paragraph_says_what_ledger_roles_allows():
    # Issue 31: "The Roles paragraph omits `submit` for ratings_admin": each role's clause names
    # exactly the verbs `ledger.roles.MAY` gives it; "only a director may also" those no other
    # role may use (a director may use every verb); an auditor writes nothing.
    text = re.sub(r"\s+", " ", (ROOT / "README.md").read_text(encoding="utf-8"))
    sentence = re.search(r"A `tournament_director` may .*?an `auditor` writes nothing\.", text)
    assert sentence
    said = {}
    for clause in sentence.group(0).split(";"):
        role, *verbs = re.findall(r"`([\w-]+)`", clause)
        said[role] = set(verbs)
    D, RA, TD = Role.DIRECTOR, Role.RATINGS_ADMIN, Role.TOURNAMENT_DIRECTOR
    assert all(D in may for may in MAY.values())
    assert said == {
        TD: may_use(TD),
        RA: may_use(RA),
        D: {str(verb) for verb, may in MAY.items() if may == (D,)},
        Role.AUDITOR: may_use(Role.AUDITOR),
    }
    assert said[Role.AUDITOR] == set() and "submit" in said[RA]


def test_the_decisions_roles_table_is_ledger_roles_table():
    # Issue 31: the copy of `ledger.roles.MAY` in docs/decisions.md ("Who may write what") had
    # no `submit` for the office either, nor `fide-uplift`, `set-aside` or `merge-players`.
    text = DECISIONS.read_text(encoding="utf-8")
    table = text.split("#### Who may write what", 1)[1].split("\n\n- ", 1)[0]
    header, _, *rows = [r for r in table.splitlines() if r.startswith("|")]
    columns = [c.strip() for c in header.strip("|").split("|")][1:]
    shown = {}
    for row in rows:
        verb, *marks = [c.strip() for c in row.strip("|").split("|")]
        shown[verb.strip("`")] = {r for r, m in zip(columns, marks, strict=True) if m == "✓"}
    assert shown == {str(verb): {str(r) for r in may} for verb, may in MAY.items()}
