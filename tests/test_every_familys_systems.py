"""Issue 30, "one family vocabulary in every command": a section's `system` hint and its
online check take every family's systems (`families.every()`), not only US Chess's."""

from __future__ import annotations

import pytest
from test_ledger_sections import section_data

from ledger.commands import SubmitSection, parse
from ledger.errors import InvalidCommand
from ledger.rules import families


@pytest.mark.parametrize("system", ["FIDE", "FIDE_RAPID", "FIDE_BLITZ", "ICU", "OTBR"])
def test_a_section_may_name_any_familys_system(system: str) -> None:
    # Issue 30: results carry "the family's own system names (FIDE standard/rapid/blitz, ICU)";
    # a section naming FIDE's rapid list was refused as "not one of OTBR, …".
    section = parse(SubmitSection, section_data(system=system))
    assert section.system == system


def test_the_refusal_names_every_familys_systems() -> None:
    # Issue 30: the door's list is the families' (ledger.rules.families), in their order.
    every = [s for f in families.every() for s in f.systems]
    with pytest.raises(InvalidCommand) as e:
        parse(SubmitSection, section_data(system="STANDARD"))
    assert str(e.value) == f"system: 'STANDARD' is not one of {', '.join(every)}"
    assert {"FIDE_BLITZ", "ICU", "OLB"} <= set(every)


def test_a_fide_system_is_over_the_board_and_a_us_online_one_still_needs_online() -> None:
    # The online check asks every family's `online_systems`: FIDE's lists are over the board
    # (B.02 1.1 rates no online game), so FIDE_RAPID online is refused; OLR still needs it.
    with pytest.raises(InvalidCommand) as e:
        parse(SubmitSection, section_data(system="FIDE_RAPID", online=True))
    assert str(e.value).startswith("system: 'FIDE_RAPID' is an over-the-board system but online")
    assert parse(SubmitSection, section_data(system="OLR", online=True)).system == "OLR"
