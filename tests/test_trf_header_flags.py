"""`import trf`: a flag for every header field the import reads (issue 31: "Every header field
has such a flag (`--name` among them)"; a file is "refused in one line that names the flag that
supplies what is truly missing, and then imports with it").
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from trf_helpers import HEADER, import_trf, ledger, player, trf, write

from ledger.entrypoints.interchange import trf as trf_module
from ledger.errors import InvalidCommand

README = Path(__file__).parents[1] / "README.md"
PLAYERS = (
    player(1, "Adams, Ann", [(2, "w", "1"), (3, "b", "=")], points="1.5"),
    player(2, "Brown, Bob", [(1, "b", "0"), (0, "-", "H")], points="0.5"),
    player(3, "Clark, Cid", [(0, "-", "F"), (1, "w", "=")], points="1.5"),
)
# Five real files of the issue are like this: player lines only, no tournament line at all.
HEADERLESS = trf(*PLAYERS, header=())


def refusal(text: str, **flags: Any) -> str:
    with pytest.raises(InvalidCommand) as caught:
        trf_module.to_section(trf_module.parse_trf(text, "club.trf"), **flags)
    return caught.value.message


def test_a_file_with_only_player_lines_is_refused_in_one_line_naming_its_flags(
    tmp_path: Path,
) -> None:
    # Issue 31: "5 have no header lines at all and are refused with 'no 012 line (tournament
    # name)': no flag supplies a name"; now the one line names each flag that supplies one.
    result = import_trf(ledger(tmp_path), write(tmp_path, HEADERLESS))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: {tmp_path / 'club.trf'}: no 012 line (tournament name); no 042 line (start "
        "date); no 052 line (end date): give --name, --start, --end"
    ]


def test_the_file_then_imports_with_the_flags_it_named(tmp_path: Path) -> None:
    # Issue 31: "and then imports with it"; "every player's total and games equal to the
    # file's". `--section-id` defaults to the start date and `--name`.
    cli = ledger(tmp_path)
    path = write(tmp_path, HEADERLESS)
    flags = ("--name", "Club Night", "--start", "2024-05-04", "--end", "2024-05-05")
    result = import_trf(cli, path, *flags, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    section_id = summary["sections"][0]["section_id"]
    assert section_id == "2024-05-04-club-night"
    section = json.loads(cli("section", section_id, "--json").stdout)
    assert (section["event_name"], section["start_date"], section["end_date"]) == (
        "Club Night",
        "2024-05-04",
        "2024-05-05",
    )
    assert (len(section["games"]), len(section["byes"])) == (2, 2)


def test_a_flag_for_a_field_the_file_has_is_not_named(tmp_path: Path) -> None:
    # Issue 31: the line names "the flag that supplies what is truly missing": the file has
    # its name (012), so `--name` is not asked for.
    text = trf(*PLAYERS, header=("012 Club Night",))
    result = import_trf(ledger(tmp_path), write(tmp_path, text))
    assert result.exit_code == 2
    assert result.stderr.endswith(
        ": no 042 line (start date); no 052 line (end date): give --start, --end\n"
    )
    assert "--name" not in result.stderr


def test_round_dates_supply_the_dates_so_only_the_name_is_asked() -> None:
    # The 132 line's dates of the rounds give the start and end: only 012 is truly missing.
    text = trf(*PLAYERS, header=(f"132{'':88}24/05/04  24/05/05",))
    assert refusal(text) == "club.trf: no 012 line (tournament name): give --name"
    section = trf_module.to_section(trf_module.parse_trf(text, "club.trf"), name="Club Night")
    assert (section.data["start_date"], section.data["end_date"]) == ("2024-05-04", "2024-05-05")


@pytest.mark.parametrize("written", ["0000/00/00", "0000-00-00", "00000000", ""])
def test_a_header_date_written_as_unknown_is_asked_of_its_flag(written: str) -> None:
    # Issue 31: unknown values "(`0000/00/00`, `00000000`, blank) are unknown, not errors";
    # brief: "the same in the header's dates where the flag then supplies them".
    header = ("012 Club Night", f"042 {written}", "052 2024/05/04")
    text = trf(*PLAYERS, header=header)
    assert refusal(text) == f"club.trf: line 2: start date unknown ({written!r}): give --start"
    section = trf_module.to_section(trf_module.parse_trf(text, "c"), start=date(2024, 5, 3))
    assert section.data["start_date"] == "2024-05-03"


def test_the_name_flag_replaces_the_file_s_012_and_names_the_section() -> None:
    report = trf_module.parse_trf(trf(*PLAYERS), "club.trf")
    section = trf_module.to_section(report, name="Spring Rapid")
    assert section.data["event_name"] == "Spring Rapid"
    assert section.data["section_id"] == "2024-05-04-spring-rapid"
    assert section.origins[("event_name",)] == "--name"


def test_rounds_replaces_xxr(tmp_path: Path) -> None:
    # Issue 31: "finished online events whose header announces one round more than was
    # played": `--rounds` says how many rounds the tournament had, instead of XXR/142.
    path = write(tmp_path, trf(*PLAYERS, header=(*HEADER, "XXR 3")))
    cli = ledger(tmp_path)
    refused = import_trf(cli, path)
    assert refused.exit_code == 2
    assert "(3 rounds announced (XXR/142), 2 played)" in refused.stderr
    assert "or --rounds 2 if it had 2" in refused.stderr
    too_few = import_trf(cli, path, "--rounds", "1")
    assert too_few.stderr == "error: --rounds 1: the file has games in round 2\n"
    result = import_trf(cli, path, "--rounds", "2", "--json")
    assert result.exit_code == 0, result.output
    assert not [w for w in json.loads(result.stdout)["warnings"] if "in progress" in w]


def test_every_flag_is_in_the_readme_s_import_paragraph() -> None:
    # Brief: "README's import paragraph lists the flags".
    text = README.read_text()
    paragraph = text[text.index("## Federations' files") :].split("\n\n")[1]
    named = set(re.findall(r"--[a-z-]+", paragraph))
    assert set(trf_module.FLAGS.values()) <= named
