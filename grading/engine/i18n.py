"""Translation without Django: the engine's sentences go through gettext, which Django installs.

The engine imports no Django, so it cannot call django.utils.translation itself. Every sentence a
person reads is written as `gettext("…")`, `ngettext("…", "…", n)` (these names are the ones
makemessages extracts), or `gettext_noop("…")` in a module-level table that is translated where
the sentence is used. Until `install` is called (grading.apps.GradingConfig.ready does, with
Django's gettext and ngettext) the engine speaks English: tests, benchmarks and scripts that use
the engine on its own need no Django at all.

Translation happens when a sentence is made, so nothing that caches text across calls may hold a
translated sentence (it would serve one learner's language to another): caches keep codes and
numbers, and the sentence is written from them each time.
"""

from __future__ import annotations

from collections.abc import Callable

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


def _english(message: str) -> str:
    return message


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


_translator: tuple[Gettext, Ngettext] = (_english, _english_plural)


def install(gettext: Gettext, ngettext: Ngettext) -> None:
    """Translate the engine's sentences with these functions from now on (called once, from
    Django's side, with django.utils.translation.gettext and ngettext)."""
    global _translator
    _translator = (gettext, ngettext)


def uninstall() -> None:
    """Back to English (for tests of the engine on its own)."""
    install(_english, _english_plural)


def gettext(message: str) -> str:
    """message in the active language, e.g. gettext("Not correct.")."""
    return _translator[0](message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for n, in the active language; fill in %(n)s yourself."""
    return _translator[1](singular, plural, n)


def gettext_noop(message: str) -> str:
    """Marks a sentence of a module-level table for translation; gettext it where it is used."""
    return message
