"""Instructors manage integrations here: API keys (shown once, revocable) and learners."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts.moments import moment_text
from integrations import services
from integrations.models import ApiKey, Integration, Learner, LtiTie


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ["name", "prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        # Keys are made on the API key page, which shows the new token once.
        return False


class LtiTieInline(admin.TabularInline):
    """Tie the integration to the LTI registration of the same LMS, so its grades API shows the
    LMS `sub` of the learners that LMS launched in (docs/api.md)."""

    model = LtiTie
    extra = 0


@admin.register(Integration)
class IntegrationAdmin(admin.ModelAdmin):
    list_display = ["name", "key_count", "learner_count", "created_at"]
    search_fields = ["name", "notes"]
    inlines = [ApiKeyInline, LtiTieInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                key_count=Count("api_keys", distinct=True),
                learner_count=Count("learners", distinct=True),
            )
        )

    @admin.display(description=gettext_lazy("API keys"), ordering="key_count")
    def key_count(self, obj: Integration) -> int:
        return obj.key_count

    @admin.display(description=gettext_lazy("Learners"), ordering="learner_count")
    def learner_count(self, obj: Integration) -> int:
        return obj.learner_count


@admin.action(description=gettext_lazy("Revoke the selected keys (at once, for good)"))
def revoke_keys(modeladmin, request, queryset):
    now = timezone.now()
    live = list(queryset.filter(revoked_at__isnull=True))
    for key in live:
        services.api_key_revoke(key=key, now=now)
    message = ngettext("Revoked %(count)s key.", "Revoked %(count)s keys.", len(live)) % {
        "count": len(live)
    }
    modeladmin.message_user(request, message, messages.SUCCESS)


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["name", "integration", "token_start", "scope", "last_used_at", "state"]
    list_filter = ["integration", ("revoked_at", admin.EmptyFieldListFilter)]
    list_select_related = ["integration"]
    search_fields = ["name", "prefix", "integration__name"]
    filter_horizontal = ["courses"]
    actions = [revoke_keys]
    issued_template = "admin/integrations/apikey/issued.html"

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("courses")

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["integration", "name", "courses"]
        return [
            "integration",
            "name",
            "courses",
            "token_start",
            "created_by",
            "created_at",
            "last_used_at",
            "revoked_at",
        ]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        # The integration is fixed once the key exists: the key acts for its learners.
        return [
            "integration",
            "token_start",
            "created_by",
            "created_at",
            "last_used_at",
            "revoked_at",
        ]

    @admin.display(description=gettext_lazy("Key starts with"))
    def token_start(self, obj: ApiKey) -> str:
        return f"{ApiKey.TOKEN_PREFIX}{obj.prefix}_…" if obj.prefix else "—"

    @admin.display(description=gettext_lazy("Courses"))
    def scope(self, obj: ApiKey) -> str:
        return ", ".join(course.slug for course in obj.courses.all()) or _("none")

    @admin.display(description=gettext_lazy("State"))
    def state(self, obj: ApiKey) -> str:
        if obj.revoked:
            return _("revoked %(moment)s") % {"moment": moment_text(obj.revoked_at)}
        return _("live")

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        # The token exists only in this response: it is stored as a digest and never shown again.
        request._issued_token = services.api_key_issue(key=obj, created_by=request.user)

    def response_add(self, request, obj, post_url_continue=None):
        token = getattr(request, "_issued_token", None)
        if token is None:
            return super().response_add(request, obj, post_url_continue)
        context = {
            **self.admin_site.each_context(request),
            "title": _("API key created"),
            "opts": self.opts,
            "key": obj,
            "token": token,
        }
        response = TemplateResponse(request, self.issued_template, context)
        # The token must not linger in a cache or the back/forward history.
        response["Cache-Control"] = "no-store"
        return response


@admin.register(Learner)
class LearnerAdmin(admin.ModelAdmin):
    list_display = ["external_id", "name", "email", "integration", "created_at"]
    list_filter = ["integration"]
    list_select_related = ["integration"]
    search_fields = ["external_id", "name", "email"]
    readonly_fields = ["integration", "external_id", "user", "created_at", "updated_at"]
    fields = ["integration", "external_id", "name", "email", "user", "created_at", "updated_at"]

    def has_add_permission(self, request):
        # Learners come from their integration (POST /api/v1/learners/), with its own ids.
        return False
