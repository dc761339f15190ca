"""Grant each existing registration exactly the courses its links were already placed in.

Before grants, a registration reached every course. Now it reaches only the courses it is
granted, so each one keeps what its LMS already uses, and nothing more: the course of the quiz
(or of the practice set's lesson) of every link placed through one of its deployments. The grant
holds for every deployment of the registration, as the link placed through one of them did not
stop its other deployments launching it. Migrating back does nothing here: 0007's reversal
drops the table.
"""

from django.db import migrations


def grants_from_links(apps, schema_editor):
    link_target_model = apps.get_model("lti", "LinkTarget")
    grant_model = apps.get_model("lti", "CourseGrant")
    placed = set()
    for registration_id, quiz_course_id, lesson_course_id in link_target_model.objects.values_list(
        "resource_link__context__deployment__registration_id",
        "quiz__lesson__course_id",
        "lesson__course_id",
    ).iterator():
        course_id = quiz_course_id or lesson_course_id
        if registration_id is not None and course_id is not None:
            placed.add((registration_id, course_id))
    grant_model.objects.bulk_create(
        [
            grant_model(registration_id=registration_id, course_id=course_id)
            for registration_id, course_id in sorted(placed)
        ]
    )


class Migration(migrations.Migration):
    dependencies = [
        ("lti", "0007_registration_courses"),
    ]

    operations = [
        migrations.RunPython(grants_from_links, migrations.RunPython.noop, elidable=True),
    ]
