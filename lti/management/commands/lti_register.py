"""Register an LMS (issuer, client id, endpoints, deployment ids) from options or a JSON file.

    manage.py lti_register --issuer https://lms.example.edu --client-id 123 \\
        --auth-url https://lms.example.edu/auth --token-url https://lms.example.edu/token \\
        --keyset-url https://lms.example.edu/jwks --deployment-id 1 [--deployment-id 2] \
        --course attention-math [--course …]
    manage.py lti_register --json lms.json

A registration reaches only the courses it is granted (`--course SLUG`, repeatable; none by
default). Registering the same issuer and client id again updates its name and URLs and adds (or
switches on) the deployments given and grants the courses given; it never removes either. Any
invalid value (an unknown course slug too): exit status 1, a message for each problem, and
nothing stored.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from lti.registrations import PlatformDetails, RegistrationInvalid, registration_save

# JSON key → option; the JSON file uses the same names as PlatformDetails.
FIELDS = {
    "issuer": "--issuer",
    "client_id": "--client-id",
    "auth_url": "--auth-url",
    "token_url": "--token-url",
    "keyset_url": "--keyset-url",
    "name": "--name",
    "audience": "--audience",
}
DEPLOYMENTS = "deployment_ids"
COURSES = "courses"
LISTS = {DEPLOYMENTS: "deployment_ids", COURSES: "course_slugs"}


def details_from_json(path: str) -> PlatformDetails:
    try:
        loaded = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise CommandError(
            _("%(path)s: cannot be read (%(error)s).")
            % {"path": path, "error": exc.strerror or exc}
        ) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise CommandError(
            _("%(path)s: not JSON (%(error)s).") % {"path": path, "error": exc}
        ) from exc
    if not isinstance(loaded, dict):
        raise CommandError(_("%(path)s: must hold one JSON object.") % {"path": path})
    unknown = sorted(set(loaded) - set(FIELDS) - set(LISTS))
    if unknown:
        raise CommandError(
            _("%(path)s: unknown key(s) %(unknown)s; the keys are %(keys)s.")
            % {"path": path, "unknown": ", ".join(unknown), "keys": ", ".join([*FIELDS, *LISTS])}
        )
    values = {}
    for key in FIELDS:
        value = loaded.get(key, "")
        if not isinstance(value, str):
            raise CommandError(
                _("%(path)s: “%(key)s” must be a string.") % {"path": path, "key": key}
            )
        values[key] = value
    lists = {}
    for key, attribute in LISTS.items():
        items = loaded.get(key, [])
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise CommandError(
                _("%(path)s: “%(key)s” must be a list of strings.") % {"path": path, "key": key}
            )
        lists[attribute] = tuple(items)
    return PlatformDetails(**values, **lists)


def add_course_option(parser) -> None:
    parser.add_argument(
        "--course",
        action="append",
        default=[],
        dest="course_slugs",
        metavar="SLUG",
        help="a softgrade course the LMS may reach (repeat for several); none by default",
    )


class Command(BaseCommand):
    help = (
        "Register an LMS for LTI 1.3 (or update its registration): from options, or from a "
        "JSON file with the keys issuer, client_id, auth_url, token_url, keyset_url, "
        "deployment_ids, courses (slugs), and optionally name and audience."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", metavar="FILE", help="read every value from this file")
        parser.add_argument("--issuer", help="the LMS's issuer (https URL)")
        parser.add_argument("--client-id", help="the client id the LMS gave softgrade")
        parser.add_argument("--auth-url", help="the LMS's OIDC authorization URL")
        parser.add_argument("--token-url", help="the LMS's OAuth2 access token URL")
        parser.add_argument("--keyset-url", help="the LMS's public keyset (JWKS) URL")
        parser.add_argument(
            "--deployment-id",
            action="append",
            default=[],
            dest="deployment_ids",
            help="a deployment id (repeat for several); stored switched on",
        )
        add_course_option(parser)
        parser.add_argument("--name", help="a name for the LMS (default: the issuer's host)")
        parser.add_argument("--audience", help="the token endpoint's audience, if it wants one")

    def handle(self, *args, **options):
        given = [option for key, option in FIELDS.items() if options[key] is not None]
        if options["deployment_ids"]:
            given.append("--deployment-id")
        if options["course_slugs"]:
            given.append("--course")
        if options["json"]:
            if given:
                raise CommandError(
                    _("Give either --json or the values as options, not both (%(given)s).")
                    % {"given": ", ".join(given)}
                )
            details = details_from_json(options["json"])
        else:
            details = PlatformDetails(
                **{key: options[key] or "" for key in FIELDS},
                deployment_ids=tuple(options["deployment_ids"]),
                course_slugs=tuple(options["course_slugs"]),
            )
        try:
            saved = registration_save(details=details)
        except RegistrationInvalid as invalid:
            raise CommandError(
                _("Nothing was stored:")
                + "\n"
                + "\n".join(f"  - {error}" for error in invalid.errors)
            ) from invalid
        registration = saved.registration
        if saved.created:
            said = _("Registered %(name)s: issuer %(issuer)s, client id %(client)s.")
        else:
            said = _("Updated %(name)s: issuer %(issuer)s, client id %(client)s.")
        named = {
            "name": registration.name,
            "issuer": registration.issuer,
            "client": registration.client_id,
        }
        self.stdout.write(self.style.SUCCESS(said % named))
        for deployment_id in saved.deployments_added:
            self.stdout.write(
                _("Added deployment %(deployment)s (switched on).") % {"deployment": deployment_id}
            )
        for deployment_id in saved.deployments_switched_on:
            self.stdout.write(
                _("Switched on deployment %(deployment)s.") % {"deployment": deployment_id}
            )
        for slug in saved.courses_granted:
            self.stdout.write(_("Granted the course %(course)s.") % {"course": slug})
        if not registration.softgrade_course_grants.exists():
            self.stdout.write(
                self.style.WARNING(
                    _(
                        "It is granted no course yet: its launches open nothing until one is "
                        "(--course, or in the admin)."
                    )
                )
            )
        if not registration.deployments.exists():
            self.stdout.write(
                self.style.WARNING(
                    _(
                        "It has no deployment yet: launches are refused until one is added "
                        "(--deployment-id, or in the admin)."
                    )
                )
            )
