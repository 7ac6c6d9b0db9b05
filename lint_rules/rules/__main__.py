"""Print the generated rule reference, or splice it into a README: ``--readme README.md``."""
import sys
from pathlib import Path

from lint_rules.rules import render_markdown

BEGIN, END = "<!-- BEGIN rules -->\n", "<!-- END rules -->"


def main(argv) -> int:
    if argv[:1] != ["--readme"] or len(argv) != 2:
        sys.stdout.write(render_markdown())
        return 0
    path = Path(argv[1])
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"error: {path} has no {BEGIN.strip()} ... {END} block", file=sys.stderr)
        return 2
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    path.write_text(head + BEGIN + render_markdown() + END + tail, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
