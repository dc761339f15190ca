"""Questions get a title (an import keeps the question's name); placeholder misconceptions an
import made are marked, so every picker lists them after the lesson's own."""

import re

from django.db import migrations, models

# The placeholder explanation courses/moodle_xml/importer.py gave (UNNAMED_EXPLANATION), copied
# here: a migration must not change when the importer's wording does.
UNNAMED_EXPLANATION = (
    "This choice is not the right one. Its own feedback, if any, says more; the idea behind it "
    "has not been named yet."
)
MISTAKE_CODE = re.compile(r"-mistake-\d+$")


def mark_imported(apps, schema_editor):
    """Those an import made and nobody has renamed or explained since."""
    Misconception = apps.get_model("courses", "Misconception")
    wrong = Misconception.objects.filter(
        code__endswith="-wrong",
        title__startswith="A wrong answer to ",
        explanation=UNNAMED_EXPLANATION,
    )
    wrong.update(imported=True)
    mistakes = [
        m.pk
        for m in Misconception.objects.filter(title__startswith="A common wrong answer: ")
        if MISTAKE_CODE.search(m.code)
    ]
    Misconception.objects.filter(pk__in=mistakes).update(imported=True)


class Migration(migrations.Migration):
    dependencies = [
        ("courses", "0011_formula_placeholders"),
    ]

    operations = [
        migrations.AddField(
            model_name="misconception",
            name="imported",
            field=models.BooleanField(
                default=False,
                help_text="Made by an import as a placeholder: untick once it names a real idea.",
            ),
        ),
        migrations.AlterModelOptions(
            name="misconception",
            options={"ordering": ["imported", "code"]},
        ),
        migrations.AddField(
            model_name="question",
            name="title",
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.RunPython(mark_imported, migrations.RunPython.noop),
    ]
