from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class TeachingConfig(AppConfig):
    name = "teaching"
    verbose_name = gettext_lazy("Teaching (course roles and instructor pages)")
