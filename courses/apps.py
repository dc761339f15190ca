from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class CoursesConfig(AppConfig):
    name = "courses"
    verbose_name = gettext_lazy("Courses (authoring)")
