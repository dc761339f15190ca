from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = gettext_lazy("Grading (what learners do)")

    def ready(self) -> None:
        # The engine imports no Django: it is handed Django's translation functions here, so its
        # feedback, messages and worked solutions speak the language of the request.
        from django.utils.translation import gettext, ngettext

        from grading.engine import i18n

        i18n.install(gettext, ngettext)
