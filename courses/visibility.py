"""What learners may see, decided here once: published questions, problems and quizzes.

Every learner page, practice list, lesson page, mastery count and the learner API read through
`learner_visible` (the models' `for_learners` and `for_practice`); instructor pages and previews
read the plain managers and see unpublished content too. The rule a published quiz keeps (it
holds only published content) lives in courses.publishing.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


def learner_visible(path: str = "") -> Q:
    """Published content only; `path` reaches the content from another model ("problem__")."""
    return Q(**{f"{path}published": True})


def practice_problem(path: str = "") -> Q:
    """The problems learners may practise: published and not marked exam only."""
    return learner_visible(path) & Q(**{f"{path}exam_only": False})


def published_field() -> models.BooleanField:
    # New content starts unpublished: an instructor decides when learners see it.
    return models.BooleanField(
        default=False,
        help_text=_(
            "Learners see it only once it is published. A published quiz holds only "
            "published questions and problems."
        ),
        verbose_name=_("published"),
    )


class LearnerVisibleQuerySet(models.QuerySet):
    def for_learners(self) -> LearnerVisibleQuerySet:
        """The rows learners may see (learner_visible)."""
        return self.filter(learner_visible())
