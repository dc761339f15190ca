"""Background tasks of the learner's pages (Django's Tasks framework; `make worker` runs them)."""

from __future__ import annotations

from django.contrib.auth.forms import PasswordResetForm
from django.tasks import task


@task()
def password_reset_mail_send(*, email: str, domain: str, use_https: bool) -> int:
    """Mail a reset link to each active account with a usable password that uses `email`;
    returns how many were sent (0 for an address no account uses).

    The reset page enqueues this for every request it accepts, known address or not, so its
    answer takes the same time either way: looking the accounts up, making their tokens and
    talking to the mail server all happen here, in the worker.
    """
    form = PasswordResetForm({"email": email})
    if not form.is_valid():
        return 0
    users = list(form.get_users(form.cleaned_data["email"]))
    if users:
        # Django's own sending: the same templates, token and one-use link as the reset page.
        form.save(domain_override=domain, use_https=use_https)
    return len(users)
