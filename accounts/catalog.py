"""The page scripts' strings in the page's language (Django's JavaScript catalog).

Its address names the language (`/jsi18n/de/`), so a browser may keep it for an hour without
ever serving one language's catalog to a page in another.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe
from django.views.i18n import JavaScriptCatalog

from accounts.languages import supported

_catalog = JavaScriptCatalog.as_view()


@require_safe
@cache_control(max_age=3600, public=True)
def javascript_catalog(request: HttpRequest, language: str) -> HttpResponse:
    code = supported(language)
    if code != language:
        raise Http404("softgrade does not speak that language.")
    with translation.override(code):
        return _catalog(request)
