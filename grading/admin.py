"""Admin for what the grading engine drives: problems (with variant previews)."""

from django.contrib import admin

from courses.models import Problem


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "family", "lesson"]
    list_filter = ["lesson", "family"]
    search_fields = ["title", "slug", "family", "prompt"]
