"""The admin's date and time inputs, their zone named.

Django's admin already reads and shows a date-time in the active zone (the person's,
accounts/middleware.py); its inputs do not say which zone that is. ZonedAdminSplitDateTime names
it in the time input's own label ("Time (Pacific/Auckland):"), so a screen reader says it too.
A ModelAdmin whose authors type moments sets `formfield_overrides = ZONED_DATE_TIMES`.
"""

from __future__ import annotations

from django.contrib.admin.widgets import AdminSplitDateTime
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _


class ZonedAdminSplitDateTime(AdminSplitDateTime):
    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        context["time_label"] = _("Time (%(zone)s):") % {
            "zone": timezone.get_current_timezone_name()
        }
        return context


ZONED_DATE_TIMES = {models.DateTimeField: {"widget": ZonedAdminSplitDateTime}}
