from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    verbose_name = "Integrations (LMS access to the API)"

    def ready(self) -> None:
        # Registers the API key scheme with the OpenAPI generator (an import side effect).
        from integrations.api import authentication  # noqa: F401
