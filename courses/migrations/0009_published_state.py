"""Questions, problems and quizzes gain a published state.

Everything that exists today is published, so existing courses keep working for their learners:
each field is added with default True, which fills the rows already there, then the default
becomes False, so content made from now on starts unpublished (an instructor publishes it).
"""

from django.db import migrations, models

HELP_TEXT = (
    "Learners see it only once it is published. A published quiz holds only published "
    "questions and problems."
)
MODELS = ("problem", "question", "quiz")


class Migration(migrations.Migration):

    dependencies = [
        ("courses", "0008_quiz_overdue_handling"),
    ]

    operations = [
        *(
            migrations.AddField(
                model_name=name,
                name="published",
                field=models.BooleanField(default=True, help_text=HELP_TEXT),
            )
            for name in MODELS
        ),
        *(
            migrations.AlterField(
                model_name=name,
                name="published",
                field=models.BooleanField(default=False, help_text=HELP_TEXT),
            )
            for name in MODELS
        ),
    ]
