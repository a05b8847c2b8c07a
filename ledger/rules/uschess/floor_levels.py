"""The numbers of §5 (and §7's match floor lowering): one table, read by the floor rules and
by the family's pages without loading the arithmetic. `Final`: compiled, each is inlined as a
native int where it is read."""

from typing import Final

ABSOLUTE_FLOOR: Final = 100  # §5: "The absolute rating floor for all ratings is 100."
PERSONAL_FLOOR_CAP: Final = 150  # §5: "a player's absolute floor can never be higher than 150"
# §5: "subtracting 200 points from the highest attained established rating"
PEAK_FLOOR_MARGIN: Final = 200
PEAK_FLOOR_LOWEST: Final = 1200  # §5: "Higher rating floors exist at 1200, 1300, 1400, ..., 2100."
PEAK_FLOOR_HIGHEST: Final = 2100
FLOOR_STEP: Final = 100
OLM_RATING: Final = 2200  # §5: "keeps an established rating above 2200 for 300 ... rated games"
OLM_GAMES: Final = 300
OLM_FLOOR: Final = 2200  # §5: "will obtain a rating floor of 2200"
# §5: "in an under-2000 context ... first 100-point level (up to 2000)"
MONEY_FLOOR_HIGHEST: Final = 2000
MATCH_FLOOR_LOWERING: Final = 100  # §7: "the new floor will be 100 points below the old floor"
