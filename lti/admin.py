"""Instructors see LTI here: the courses each registration is granted (on django-lti's
registration page), links and their gradebook columns, every score sent back with each
try's outcome (and a "resend" action), roster syncs, registration links (made on /lti/setup/;
deleting an unused one revokes it). Platform registrations and deployments are
django-lti's admin (LTI tool → LTI registrations); the URLs to give an LMS are on /lti/setup/."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy, ngettext
from lti_tool.admin import LtiRegistrationAdmin
from lti_tool.models import LtiDeployment, LtiRegistration

from lti.models import (
    CourseGrant,
    LineItem,
    LinkTarget,
    PassbackOutcome,
    PlatformHosts,
    RegistrationInvite,
    RosterSync,
    ScorePassback,
)
from lti.passback import passback_resend


class PlatformHostsInline(admin.StackedInline):
    model = PlatformHosts
    extra = 0
    max_num = 1
    can_delete = True


class CourseGrantInline(admin.TabularInline):
    """The courses the registration reaches (lti.tenancy); a new registration has none."""

    model = CourseGrant
    extra = 0
    fields = ["course", "deployment", "granted_at"]
    readonly_fields = ["granted_at"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "deployment":
            # Only this registration's own deployments narrow one of its grants.
            registration_id = request.resolver_match.kwargs.get("object_id")
            kwargs["queryset"] = LtiDeployment.objects.filter(registration_id=registration_id)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


# django-lti's registration page, with the courses it is granted and the hosts softgrade may
# also call for it (lti.outbound).
admin.site.unregister(LtiRegistration)


@admin.register(LtiRegistration)
class RegistrationWithHostsAdmin(LtiRegistrationAdmin):
    inlines = [*LtiRegistrationAdmin.inlines, CourseGrantInline, PlatformHostsInline]


class LineItemInline(admin.StackedInline):
    model = LineItem
    extra = 0
    can_delete = False
    fields = ["url", "label", "score_maximum", "created_by_softgrade", "created_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        # A link's column comes from the LMS (at launch or on the first score), never by hand.
        return False


@admin.register(LinkTarget)
class LinkTargetAdmin(admin.ModelAdmin):
    list_display = ["resource_link", "kind", "quiz", "lesson", "mastery_passback", "created_at"]
    list_filter = ["kind", "mastery_passback"]
    list_select_related = ["resource_link", "quiz", "lesson"]
    search_fields = ["resource_link__title", "resource_link__id_on_platform", "quiz__slug"]
    raw_id_fields = ["resource_link"]
    inlines = [LineItemInline]


class PassbackOutcomeInline(admin.TabularInline):
    model = PassbackOutcome
    extra = 0
    can_delete = False
    fields = ["created_at", "result", "http_status", "detail"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.action(description=gettext_lazy("Resend the selected scores to the LMS now"))
def resend(modeladmin, request, queryset):
    count = passback_resend(passbacks=list(queryset))
    message = ngettext(
        "Queued %(count)s score to send again.", "Queued %(count)s scores to send again.", count
    ) % {"count": count}
    modeladmin.message_user(request, message, messages.SUCCESS)


@admin.register(ScorePassback)
class ScorePassbackAdmin(admin.ModelAdmin):
    list_display = [
        "lti_user",
        "target",
        "score_given",
        "score_maximum",
        "status",
        "try_count",
        "next_try_at",
        "sent_at",
        "created_at",
    ]
    list_filter = ["status", "target"]
    list_select_related = ["lti_user", "target__resource_link", "target__quiz", "target__lesson"]
    search_fields = ["lti_user__sub", "lti_user__name", "lti_user__email"]
    actions = [resend]
    inlines = [PassbackOutcomeInline]
    readonly_fields = [
        "target",
        "lti_user",
        "attempt",
        "score_given",
        "score_maximum",
        "activity_progress",
        "scored_at",
        "status",
        "try_count",
        "next_try_at",
        "last_error",
        "sent_at",
        "created_at",
    ]
    fields = readonly_fields

    def has_add_permission(self, request):
        # Scores come from learners' work; a hand-made one would put a grade in the LMS.
        return False


@admin.register(RosterSync)
class RosterSyncAdmin(admin.ModelAdmin):
    list_display = ["context", "status", "members", "active_members", "started_at"]
    list_filter = ["status"]
    list_select_related = ["context"]
    readonly_fields = [
        "context",
        "requested_by",
        "status",
        "members",
        "active_members",
        "detail",
        "started_at",
        "finished_at",
    ]
    fields = readonly_fields

    def has_add_permission(self, request):
        return False


@admin.register(RegistrationInvite)
class RegistrationInviteAdmin(admin.ModelAdmin):
    """Who made each registration link, whether it was used and what it registered."""

    list_display = ["created_at", "created_by", "expires_at", "used_at", "registration"]
    list_select_related = ["created_by", "registration"]
    readonly_fields = [
        "created_at",
        "created_by",
        "expires_at",
        "used_at",
        "registration",
        "courses",
    ]
    fields = readonly_fields

    def has_add_permission(self, request):
        # A link's token is shown once, where it is made: on the LTI setup page.
        return False

    def has_change_permission(self, request, obj=None):
        return False
