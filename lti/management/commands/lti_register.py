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
        raise CommandError(f"{path}: cannot be read ({exc.strerror or exc}).") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise CommandError(f"{path}: not JSON ({exc}).") from exc
    if not isinstance(loaded, dict):
        raise CommandError(f"{path}: must hold one JSON object.")
    unknown = sorted(set(loaded) - set(FIELDS) - set(LISTS))
    if unknown:
        raise CommandError(
            f"{path}: unknown key(s) {', '.join(unknown)}; the keys are "
            f"{', '.join([*FIELDS, *LISTS])}."
        )
    values = {}
    for key in FIELDS:
        value = loaded.get(key, "")
        if not isinstance(value, str):
            raise CommandError(f"{path}: “{key}” must be a string.")
        values[key] = value
    lists = {}
    for key, attribute in LISTS.items():
        items = loaded.get(key, [])
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise CommandError(f"{path}: “{key}” must be a list of strings.")
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
                    f"Give either --json or the values as options, not both ({', '.join(given)})."
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
                "Nothing was stored:\n" + "\n".join(f"  - {error}" for error in invalid.errors)
            ) from invalid
        registration = saved.registration
        verb = "Registered" if saved.created else "Updated"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} {registration.name}: issuer {registration.issuer}, "
                f"client id {registration.client_id}."
            )
        )
        for deployment_id in saved.deployments_added:
            self.stdout.write(f"Added deployment {deployment_id} (switched on).")
        for deployment_id in saved.deployments_switched_on:
            self.stdout.write(f"Switched on deployment {deployment_id}.")
        for slug in saved.courses_granted:
            self.stdout.write(f"Granted the course {slug}.")
        if not registration.softgrade_course_grants.exists():
            self.stdout.write(
                self.style.WARNING(
                    "It is granted no course yet: its launches open nothing until one is "
                    "(--course, or in the admin)."
                )
            )
        if not registration.deployments.exists():
            self.stdout.write(
                self.style.WARNING(
                    "It has no deployment yet: launches are refused until one is added "
                    "(--deployment-id, or in the admin)."
                )
            )
