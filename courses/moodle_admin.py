"""The lesson admin's Moodle XML import (upload, preview, confirm) and export (an action).

The preview runs the whole import without writing; the confirmation sends the same file back
(in a hidden field) and runs it again, writing this time, so what is written is checked anew
and never trusted from the browser. Both need permission to add questions, choices,
misconceptions and problems, and, to fill a pool as well, to change pools.
"""

from __future__ import annotations

import base64
import binascii
import zlib

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from .models import Lesson, Pool
from .moodle_xml.importer import moodle_import
from .moodle_xml.issues import MoodleXmlError
from .moodle_xml.reader import read_source
from .moodle_xml.writer import moodle_export
from .plain_math import plain_math

# How an import is recorded in the admin's log (on the lesson, by whoever imported), so the
# admin's start page can list a user's recent imports (teaching/start/).
IMPORT_LOG_PREFIX = "Imported from Moodle XML"

IMPORT_PERMISSIONS = (
    "courses.add_question",
    "courses.add_choice",
    "courses.add_misconception",
    "courses.add_problem",
)


class MoodleUploadForm(forms.Form):
    lesson = forms.ModelChoiceField(queryset=Lesson.objects.select_related("course"))
    file = forms.FileField(help_text=gettext_lazy("A Moodle XML file (.xml) of questions."))
    pool = forms.ModelChoiceField(
        queryset=Pool.objects.select_related("lesson__course"),
        required=False,
        help_text=gettext_lazy(
            "Optional: a pool of the lesson's course that every imported question and "
            "problem also joins."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A pool's course and lesson, so the one of the lesson's course is easy to pick.
        self.fields["pool"].label_from_instance = lambda pool: (
            f"{plain_math(pool.title)} ({pool.lesson})"
        )


class MoodleConfirmForm(forms.Form):
    lesson = forms.ModelChoiceField(queryset=Lesson.objects.all(), widget=forms.HiddenInput)
    file_name = forms.CharField(widget=forms.HiddenInput, max_length=255)
    source = forms.CharField(widget=forms.HiddenInput)
    pool = forms.ModelChoiceField(
        queryset=Pool.objects.select_related("lesson__course"),
        required=False,
        widget=forms.HiddenInput,
    )

    def clean_source(self) -> bytes:
        try:
            compressed = base64.b64decode(self.cleaned_data["source"], validate=True)
            # Decoded up to one byte over the limit, so a small payload that would inflate far
            # past it costs no more than the limit; the import refuses it, naming the line.
            limit = settings.MOODLE_XML_MAX_BYTES + 1
            source = zlib.decompressobj().decompress(compressed, limit)
        except (binascii.Error, ValueError, zlib.error) as exc:
            message = _("The file could not be read back; upload it again.")
            raise forms.ValidationError(message) from exc
        return source


def packed(source: bytes) -> str | None:
    """The file for the confirmation's hidden field, or None when the form could not carry it.

    Compressed, since Django refuses a form whose fields exceed DATA_UPLOAD_MAX_MEMORY_SIZE.
    """
    text = base64.b64encode(zlib.compress(source, 9)).decode("ascii")
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return text if limit is None or len(text) < limit - 4096 else None


def moodle_import_view(model_admin: admin.ModelAdmin, request):
    """Upload a file and see what it would import; confirm to import it."""
    if not request.user.has_perms(IMPORT_PERMISSIONS):
        raise PermissionDenied
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": _("Import questions from Moodle XML"),
    }
    form = MoodleUploadForm()
    if request.method == "POST" and "confirm" in request.POST:
        confirm = MoodleConfirmForm(request.POST)
        if confirm.is_valid():
            lesson, source = confirm.cleaned_data["lesson"], confirm.cleaned_data["source"]
            pool = _pool_allowed(request, confirm.cleaned_data["pool"])
            try:
                report = moodle_import(
                    source=source,
                    file_name=confirm.cleaned_data["file_name"],
                    lesson=lesson,
                    pool=pool,
                )
            except MoodleXmlError as exc:
                context["issues"] = exc.issues
            else:
                model_admin.log_change(
                    request,
                    lesson,
                    f"{IMPORT_LOG_PREFIX} ({confirm.cleaned_data['file_name']}): "
                    f"{len(report.imported)} item(s), {len(report.reported)} left out.",
                )
                imported, left_out = len(report.imported), len(report.reported)
                done = ngettext(
                    "Imported %(count)s item into %(lesson)s;",
                    "Imported %(count)s items into %(lesson)s;",
                    imported,
                ) % {"count": imported, "lesson": lesson}
                left = ngettext(
                    "%(count)s question left out.", "%(count)s questions left out.", left_out
                ) % {"count": left_out}
                messages.success(request, f"{done} {left} {report.publishing_note}")
                return redirect("admin:courses_lesson_change", lesson.pk)
        else:
            context["issues"] = [str(e) for errors in confirm.errors.values() for e in errors]
    elif request.method == "POST":
        form = MoodleUploadForm(request.POST, request.FILES)
        if form.is_valid():
            upload, lesson = form.cleaned_data["file"], form.cleaned_data["lesson"]
            pool = _pool_allowed(request, form.cleaned_data["pool"])
            source = read_source(upload)
            try:
                report = moodle_import(
                    source=source, file_name=upload.name, lesson=lesson, write=False, pool=pool
                )
            except MoodleXmlError as exc:
                context["issues"] = exc.issues
            else:
                context["report"] = report
                carried = packed(source)
                if carried is None:
                    context["too_large"] = True
                else:
                    initial = {"lesson": lesson.pk, "file_name": upload.name, "source": carried}
                    initial["pool"] = pool.pk if pool else None
                    context["confirm"] = MoodleConfirmForm(initial=initial)
    context["form"] = form
    return TemplateResponse(request, "admin/courses/lesson/moodle_import.html", context)


def _pool_allowed(request, pool: Pool | None) -> Pool | None:
    """The pool the import fills, when the user may change pools; whether it may hold the
    lesson's questions is the import's to say (courses.pool_members), per question."""
    if pool is not None and not request.user.has_perm("courses.change_pool"):
        raise PermissionDenied
    return pool


@admin.action(description=gettext_lazy("Download the questions as Moodle XML (one lesson)"))
def export_moodle_xml(model_admin: admin.ModelAdmin, request, queryset):
    # The file holds every correct answer: only staff who may read the questions get it.
    if not request.user.has_perms(("courses.view_question", "courses.view_problem")):
        raise PermissionDenied
    if queryset.count() != 1:
        model_admin.message_user(
            request, _("Choose exactly one lesson to export."), level=messages.ERROR
        )
        return None
    lesson = queryset.get()
    export = moodle_export(lesson=lesson)
    for line in export.left_out:
        model_admin.message_user(request, line, level=messages.WARNING)
    response = HttpResponse(export.xml, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{lesson.slug}-moodle.xml"'
    return response
