import sys

from ledger.entrypoints.quick import answer

if not answer(sys.argv[1:]):
    from ledger.entrypoints.cli import app

    app(prog_name="ratings-ledger")
