from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from interviews.bankfiles import MAX_FILE_BYTES, BankFileError, bank_import_text


class Command(BaseCommand):
    help = "Validate a bank file and import it (all or nothing); re-import updates by slug."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="Path to a bank YAML file.")
        parser.add_argument("--dry-run", action="store_true",
                            help="Validate and report, but write nothing.")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:
            with path.open("rb") as file:  # read no more than the limit, plus one byte
                content = file.read(MAX_FILE_BYTES + 1)
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}") from None
        try:
            summary = bank_import_text(content, dry_run=options["dry_run"])
        except BankFileError as error:
            raise CommandError(
                f"{path} is not a valid bank file ({len(error.errors)} problem(s)); nothing was "
                "imported:\n  " + "\n  ".join(error.errors)) from None
        if options["verbosity"] >= 1:
            prefix = "Dry run, nothing written. " if options["dry_run"] else ""
            self.stdout.write(self.style.SUCCESS(prefix + str(summary)))
