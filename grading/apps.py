from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = gettext_lazy("Grading (what learners do)")
