from ledger.entrypoints.cli import app

app(prog_name="ratings-ledger")
