"""Course roles in the admin: who teaches which course, as instructor or teaching assistant."""

from __future__ import annotations

from django.contrib import admin

from teaching.models import CourseRole, MisconceptionNote


@admin.register(CourseRole)
class CourseRoleAdmin(admin.ModelAdmin):
    list_display = ["user", "course", "role", "source", "updated_at"]
    list_filter = ["role", "source", "course"]
    search_fields = [
        "user__username",
        "user__first_name",
        "user__last_name",
        "user__email",
        "course__title",
        "course__slug",
    ]
    autocomplete_fields = ["course", "user"]
    fields = ["course", "user", "role", "source"]
    readonly_fields = ["source"]
    list_select_related = ["user", "course"]

    def save_model(self, request, obj: CourseRole, form, change) -> None:
        # A role set or changed here is the administrator's: later launches leave it as it is.
        obj.source = CourseRole.Source.ADMIN
        super().save_model(request, obj, form, change)


@admin.register(MisconceptionNote)
class MisconceptionNoteAdmin(admin.ModelAdmin):
    """Notes are written on the instructor pages; here they can be read, corrected or deleted."""

    list_display = ["problem", "relation", "author_name", "created_at"]
    list_filter = ["problem__lesson"]
    search_fields = ["problem__slug", "relation", "formula", "text"]
    fields = ["problem", "relation", "formula", "text", "author_name", "created_at"]
    readonly_fields = ["problem", "relation", "formula", "author_name", "created_at"]
    list_select_related = ["problem"]

    def has_add_permission(self, request) -> bool:
        return False


# The admin's start page leads somewhere: the user's courses and their /teach/ pages, buttons to
# add content and recent imports (teaching/start/), above the admin's own list of models.
admin.site.index_template = "admin/softgrade_index.html"
