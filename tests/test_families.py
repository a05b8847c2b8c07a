"""A rule family is one object (issue 17): each family's package exposes its `Family`, and the
read side, the pages and the exports ask it instead of comparing its name."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin

from ledger.door import _opening_list
from ledger.estimate import estimate, load_section
from ledger.rules.families import NAMES, every, family, reads_time_control
from ledger.rules.uschess.systems import System
from ledger.store import view_path
from projections.explain import explain
from projections.projector import View
from projections.rating import rater_class

ROOT = Path(__file__).resolve().parent.parent
COMPARES_A_NAME = re.compile(r"(==|!=)\s*[\"'](" + "|".join(NAMES) + r")[\"']")


@pytest.mark.parametrize("name", NAMES)
def test_each_family_lives_in_its_own_package_under_its_name(name):
    """ "Each rule family lives in its own package and exposes one Family"."""
    assert family(name).name == name
    assert (ROOT / "ledger" / "rules" / name / "family.py").is_file()


@pytest.mark.parametrize(("name", "version"), [(f.name, v) for f in every() for v in f.versions])
def test_each_dated_version_of_a_family_resolves_to_itself_by_name(name, version):
    """ "Its dated versions": every version a family lists is the one its resolver names."""
    assert family(name).resolve(date(2024, 6, 1), version).name == version


@pytest.mark.parametrize("name", NAMES)
def test_each_family_rates_through_a_rater_module_of_its_own(name):
    """ "The facts it rates and how": the rater its Family names, in its own package."""
    assert rater_class(name).__module__ == f"ledger.rules.{name}.rater"


@pytest.mark.parametrize("name", NAMES)
def test_the_articles_a_family_cites_by_version_are_those_of_its_own_versions(name):
    """FIDE's explanation "follows" the articles of the version in force, kept beside the
    versions in the family's package: each line names one of its dated versions."""
    assert set(family(name).explain_versions) <= set(family(name).versions)


def test_no_rating_system_belongs_to_two_families():
    """ "One read model each": a system's ratings are kept by one family only."""
    systems = [s for f in every() for s in f.systems]
    assert len(systems) == len(set(systems))


@pytest.mark.parametrize("name", NAMES)
def test_a_family_with_one_list_keeps_that_list_among_its_systems(name):
    """The system a family's lists and supplements show is one of its own."""
    listed = family(name).list_system
    assert listed is None or listed in family(name).systems


@pytest.mark.parametrize("name", NAMES)
def test_an_opening_balance_may_name_each_familys_own_list(name):
    """An opening balance is "a player's record in one system": each family's list is one the
    door takes, read from the family (no list names kept apart from it)."""
    listed = family(name).list_system or family(name).systems[0]
    assert _opening_list(listed) == listed


def test_an_opening_balance_in_a_list_no_family_keeps_is_refused_with_the_lists_named():
    """A list no family keeps is refused, and the refusal names every list that would do."""
    with pytest.raises(ValueError, match="FIDE.*ICU"):
        _opening_list("CFC")


@pytest.mark.parametrize(
    ("name", "file"),
    [("uschess", "ledger.view.db"), ("fide", "ledger.fide.view.db"), ("icu", "ledger.icu.view.db")],
)
def test_each_familys_read_model_lies_beside_the_store_under_its_own_name(name, file):
    """The read model's file: `ledger.db` → `ledger.view.db` (`ledger.fide.view.db`…)."""
    assert view_path("sqlite:////data/ledger.db", None, name) == Path("/data") / file


def test_an_unknown_family_is_refused_with_the_known_ones_named():
    with pytest.raises(ValueError, match="unknown rules family 'elo'; known: uschess, fide, icu"):
        family("elo")


@pytest.mark.parametrize(
    ("rules", "reads"),
    [("uschess", True), ("uschess-2024", True), ("fide", False), ("icu", False), ("x", False)],
)
def test_only_us_chess_rules_require_a_time_control_the_ledger_reads(rules, reads):
    """US Chess rates by footnote 1's mm + ss; a section for other rules keeps its text."""
    assert reads_time_control(rules) is reads


def test_no_code_outside_a_familys_package_compares_a_familys_name():
    """ "No code outside a family's package compares a family's name" (issue 17)."""
    found = []
    for top in ("ledger", "projections"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if len(parts) > 2 and parts[:2] == ("ledger", "rules") and parts[2] in NAMES:
                continue
            for n, line in enumerate(path.read_text().splitlines(), start=1):
                if COMPARES_A_NAME.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []


def test_an_icu_explanation_cites_the_icu_calculations(ledger, tmp_path):
    """ "A FIDE page never says 'OLM' or 'floor'": an ICU explanation follows the ICU's
    calculations, not US Chess's sections (docs/decisions.md, issue 17)."""
    p, q, r = "40000001", "40000002", "40000003"
    led = Ledger(ledger)
    led.register(p, q, r, adult=True)
    led.opening(q, "ICU", 1800.0, 100)
    led.opening(r, "ICU", 1800.0, 100)
    section = round_robin("ICU1", [p, q, r], "2024-06-01")
    view = View(tmp_path / "icu.db", "icu")
    led.submit(section)
    led.catch_up(view)
    follows = explain(view, q, "ICU", "ICU1")["item"]["follows"]
    assert follows == family("icu").explain_sections["section"]
    assert "§5" not in follows and "floor" not in follows


@pytest.mark.parametrize("name", NAMES)
def test_estimate_under_a_familys_name_rates_under_its_version_in_force(name):
    """`estimate --rules FAMILY`: "the version in force on the section's date", through the
    family's own estimator (`Family.estimator`), the same as naming that version."""
    system = family(name).list_system or family(name).systems[0]
    section = load_section(
        {
            "rules": name,
            "system": system if system in System.__members__ else "standard",
            "start_date": "2024-05-01",
            "end_date": "2024-05-03",
            "players": [
                {"id": "a", "rating": 2000, "games": 40},
                {"id": "b", "rating": 1800, "games": 40},
            ],
            "games": [{"white": "a", "black": "b", "result": "1-0"}],
        }
    )
    by_family = estimate(section)
    assert by_family["rules"] in family(name).versions
    assert estimate(section, by_family["rules"]) == by_family
    assert by_family["players"][0]["post_rating"] > 2000  # the winner gains
