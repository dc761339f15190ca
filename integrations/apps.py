from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class IntegrationsConfig(AppConfig):
    name = "integrations"
    verbose_name = gettext_lazy("Integrations (LMS access to the API)")

    def ready(self) -> None:
        # Registers the API key scheme with the OpenAPI generator (an import side effect).
        from integrations.api import authentication  # noqa: F401
