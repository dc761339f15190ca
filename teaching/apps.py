from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TeachingConfig(AppConfig):
    name = "teaching"
    verbose_name = _("Teaching (course roles and instructor pages)")
