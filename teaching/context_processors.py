"""What every page's navigation (templates/base.html) needs from the instructor's side: whether
the signed-in user teaches a course, so the "Teaching" link shows for those who may open it.

courses and grading never import teaching: base.html asks this context processor, registered in
the settings' TEMPLATES. The answer is teaching/access.py's (teaches_some_course) and costs one
EXISTS query at most per page, asked only when the page renders the link's place, never for an
anonymous user or a superuser.
"""

from __future__ import annotations

from functools import cache

from django.http import HttpRequest

from teaching import access


def teaching_navigation(request: HttpRequest) -> dict[str, object]:
    """`teaches_a_course`: a callable the template resolves when it reads it, once per request."""

    @cache
    def teaches_a_course() -> bool:
        user = getattr(request, "user", None)
        return user is not None and access.teaches_some_course(user)

    return {"teaches_a_course": teaches_a_course}
