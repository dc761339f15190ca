"""Sign-in, sign-up and password reset requests, each limited (security/logins.py)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.views import LoginView, PasswordResetView
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from accounts.backends import ACCOUNT_BACKEND
from grading.forms import SignupForm
from grading.tasks import password_reset_mail_send
from security.logins import (
    LimitedLoginForm,
    password_reset_refusal,
    signup_refusal,
)


def _safe_next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("home")


class SignIn(LoginView):
    """Django's sign-in page, with failed sign-ins limited per (user name, address) pair, per
    address and, slowing only, per user name (security/logins.py); a refused sign-in is a 429
    with the message saying how long, and Retry-After."""

    authentication_form = LimitedLoginForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.refusal:
            response.status_code = 429
            response["Retry-After"] = form.refusal.retry_after
        return response


class PasswordReset(PasswordResetView):
    """Django's reset request page, limited per address and per email typed; a refused request
    sends nothing and is a 429 with the message, whether an account uses the email or not.

    An accepted request only hands the address to the task worker: the page neither looks the
    address up nor talks to the mail server, so how long it takes to answer tells nothing
    about whether an account uses the address."""

    def form_valid(self, form):
        email = form.cleaned_data["email"]
        refusal = password_reset_refusal(request=self.request, email=email)
        if refusal:
            form.add_error(None, refusal)
            response = self.form_invalid(form)
            response.status_code = 429
            return response
        password_reset_mail_send.enqueue(
            email=email,
            domain=self.request.get_host(),
            use_https=self.request.is_secure(),
            language=translation.get_language(),
        )
        return HttpResponseRedirect(self.get_success_url())


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    refusal = signup_refusal(request=request) if request.method == "POST" else None
    if refusal:
        # Not validated: a refused request learns nothing, not even whether a name is taken.
        messages.error(request, refusal)
        form = SignupForm(initial={"username": request.POST.get("username", "")})
        context = {"form": form, "next": request.POST.get("next", "")}
        return render(request, "registration/signup.html", context, status=429)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend=ACCOUNT_BACKEND)
        messages.success(
            request, gettext("Welcome to softgrade, %(name)s.") % {"name": user.get_username()}
        )
        return redirect(_safe_next(request))
    return render(
        request, "registration/signup.html", {"form": form, "next": request.GET.get("next", "")}
    )
