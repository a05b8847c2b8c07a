from ledger.cli import app

app(prog_name="ratings-ledger")
