"""Print the generated rule reference, or write it: ``--readme README.md`` splices the compact
table into the README's rules block, ``--reference docs/rules.md`` writes the full reference."""
import sys
from pathlib import Path

from lint_rules.rules import render_markdown, render_readme

BEGIN, END = "<!-- BEGIN rules -->\n", "<!-- END rules -->"
USAGE = "usage: python -m lint_rules.rules [--readme README.md] [--reference docs/rules.md]"


def splice(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"error: {path} has no {BEGIN.strip()} ... {END} block", file=sys.stderr)
        return False
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    path.write_text(head + BEGIN + render_readme() + END + tail, encoding="utf-8")
    return True


def main(argv) -> int:
    if not argv:
        sys.stdout.write(render_markdown())
        return 0
    options = dict(zip(argv[::2], argv[1::2]))
    if len(argv) % 2 or not options or set(options) - {"--readme", "--reference"}:
        print(USAGE, file=sys.stderr)
        return 2
    if "--reference" in options:
        Path(options["--reference"]).write_text(render_markdown(), encoding="utf-8")
    if "--readme" in options and not splice(Path(options["--readme"])):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
