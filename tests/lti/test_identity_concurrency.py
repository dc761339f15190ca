"""Two first launches of one LMS user at the same moment make one account, on PostgreSQL.

Each launch runs in its own thread with its own database connection, in tests without a wrapping
transaction. SQLite serialises writers on one file (and the test database is in memory), so these
run only on PostgreSQL.
"""

from __future__ import annotations

import threading
import time

from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from django.test import Client
from lti_tool.models import LtiUser

from lti.identity import lti_account
from lti.models import LinkLaunch, LtiIdentity
from tests.api.test_concurrency import pytestmark as race_marks
from tests.api.test_concurrency import simultaneously
from tests.lti.fake_lms import launch_post, oidc_login

# The same marks as the API's race tests: PostgreSQL only, no wrapping transaction.
pytestmark = race_marks

ROUNDS = 6
# Only a guard against a hung test: the waits below end as soon as the other side is there.
PATIENCE_SECONDS = 30


def lti_accounts() -> int:
    return get_user_model().objects.filter(username__startswith="lti-").count()


def test_two_first_launches_at_once_make_one_account(platform, quiz):
    for round_ in range(ROUNDS):
        sub = f"racer-{round_}"
        launches = []
        for _ in range(2):
            browser = Client()
            login = oidc_login(browser, platform)
            token = platform.sign(
                platform.claims(nonce=login.nonce, sub=sub, custom={"softgrade_quiz": quiz.slug})
            )
            launches.append(
                lambda browser=browser, token=token, state=login.state: launch_post(
                    browser, id_token=token, state=state
                )
            )

        first, second = simultaneously(*launches)

        assert (first.status_code, second.status_code) == (302, 302), (
            first.content,
            second.content,
        )
        assert first.wsgi_request.user.pk == second.wsgi_request.user.pk
        identity = LtiIdentity.objects.get(registration=platform.registration, sub=sub)
        assert identity.user_id == first.wsgi_request.user.pk
        assert LtiUser.objects.get(sub=sub).auth_user_id == identity.user_id
        assert LinkLaunch.objects.filter(lti_user__sub=sub).count() == 1
        assert lti_accounts() == round_ + 1


def other_sessions_waiting_on_a_lock() -> bool:
    """Wait until another connection is blocked on a lock (the loser's insert); True if so."""
    deadline = time.monotonic() + PATIENCE_SECONDS
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.02)
    return False


def test_the_launch_that_loses_the_race_signs_in_the_account_the_winner_made(platform):
    """The loser's identity insert waits on the winner's, fails when the winner commits, and
    the loser signs in the winner's account; the account it had begun to make is rolled back."""
    lti_user = LtiUser.objects.create(registration=platform.registration, sub="racer")
    winner_made = threading.Event()
    winner_may_commit = threading.Event()
    accounts: dict = {}

    def winner():
        try:
            with transaction.atomic():
                accounts["winner"] = lti_account(lti_user=LtiUser.objects.get(pk=lti_user.pk))
                winner_made.set()
                winner_may_commit.wait(PATIENCE_SECONDS)
        finally:
            winner_made.set()
            connections.close_all()

    def loser():
        try:
            winner_made.wait(PATIENCE_SECONDS)
            with transaction.atomic():
                accounts["loser"] = lti_account(lti_user=LtiUser.objects.get(pk=lti_user.pk))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=winner), threading.Thread(target=loser)]
    for thread in threads:
        thread.start()
    winner_made.wait(PATIENCE_SECONDS)
    blocked = other_sessions_waiting_on_a_lock()
    winner_may_commit.set()
    for thread in threads:
        thread.join()

    assert blocked, "the second launch never waited on the first one's identity"
    assert "loser" in accounts, "the second launch failed (its exception is printed above)"
    assert accounts["winner"].pk == accounts["loser"].pk
    assert LtiIdentity.objects.get().user_id == accounts["winner"].pk
    assert lti_accounts() == 1
    assert not accounts["loser"].has_usable_password()
