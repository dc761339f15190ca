"""Formula problems' placeholders become {@name@} (docs/formula-problems.md).

The old `{name}` showed a variable's value anywhere, so `$\\sqrt{d_k}$` showed √64 once the
problem had a variable d_k. This rewrites every formula problem's prompt and worked-solution
steps: a `{name}` that names one of the problem's variables becomes `{@name@}` where it was
meant as a value, which is
- outside math, always (Markdown shows no braces; the old renderer put the value there);
- inside `$…$`, only as a bare group (`$d_k = {d_k}$`, `$\\frac{{a}}{2}$`); a command's or a
  script's argument (`\\sqrt{d_k}`, `\\mathbb{R}^{d_k}`, both groups of `\\frac{a}{b}`) stays
  LaTeX, which is what its author wrote it for.
A `{name}` naming no variable was text and stays text. Going back turns `{@name@}` into `{name}`.

grading's 0016 does the same to the variants already drawn, with these functions.
"""

import re

from django.db import migrations

# Frozen copies of the rules of grading/engine/problems/formula_placeholders.py as of this
# migration, so a later change to the engine cannot change what this migration does.
FORMULA = "formula"
NEW = re.compile(r"\{@([A-Za-z][A-Za-z0-9_]*)@\}")
OLD = re.compile(r"(?<!\\)\{([A-Za-z][A-Za-z0-9_]*)\}")
MATH = re.compile(r"\$\$(?P<display>.+?)\$\$|(?<![\\$])\$(?P<inline>[^$\n]+?)\$", re.DOTALL)
ARGUMENT_BEFORE = re.compile(r"(?:\\[A-Za-z]+\*?|[\^_}\]])\s*$")
BATCH = 500


def upgraded(text, names):
    """text with each old placeholder naming one of `names` written {@name@}."""
    if not isinstance(text, str):
        return text
    ranges = []
    for match in MATH.finditer(text):
        group = "display" if match.group("display") is not None else "inline"
        ranges.append((match.start(group), match.end(group)))

    def convert(match):
        if match.group(1) not in names:
            return match.group(0)
        formula = next((r for r in ranges if r[0] <= match.start() < r[1]), None)
        if formula is not None and ARGUMENT_BEFORE.search(text[formula[0] : match.start()]):
            return match.group(0)
        return "{@" + match.group(1) + "@}"

    return OLD.sub(convert, text)


def downgraded(text, names):
    """The reverse: {@name@} back to {name}."""
    if not isinstance(text, str):
        return text
    return NEW.sub(lambda m: "{" + m.group(1) + "}" if m.group(1) in names else m.group(0), text)


def params_changed(params, change):
    """Formula params with prompt and solution steps changed, or None when nothing changes."""
    if not isinstance(params, dict) or not isinstance(params.get("variables"), dict):
        return None
    names = set(params["variables"])
    new = dict(params)
    new["prompt"] = change(params.get("prompt"), names)
    if isinstance(params.get("solution"), list):
        new["solution"] = [change(step, names) for step in params["solution"]]
    new = {key: value for key, value in new.items() if key in params}
    return None if new == params else new


def _rewrite(apps, change):
    Problem = apps.get_model("courses", "Problem")
    batch = []
    for problem in Problem.objects.filter(family=FORMULA).only("params").iterator(chunk_size=BATCH):
        new = params_changed(problem.params, change)
        if new is None:
            continue
        problem.params = new
        batch.append(problem)
        if len(batch) >= BATCH:
            Problem.objects.bulk_update(batch, ["params"])
            batch = []
    if batch:
        Problem.objects.bulk_update(batch, ["params"])


def forward(apps, schema_editor):
    _rewrite(apps, upgraded)


def backward(apps, schema_editor):
    _rewrite(apps, downgraded)


class Migration(migrations.Migration):
    dependencies = [
        ("courses", "0010_quiz_content_version"),
    ]

    operations = [migrations.RunPython(forward, backward)]
