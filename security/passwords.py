"""How passwords are stored: Argon2id with parameters chosen for exam day.

A sign-in costs one hash. Django's default PBKDF2 (1,500,000 iterations in Django 6.1) costs
about 0.3 s of CPU, so a class signing in during the minutes before an exam can saturate a
2-core box before the exam starts; Django's own Argon2 settings (100 MiB, 8 lanes) cost about
0.2 s. These are the first of OWASP's recommended Argon2id settings (19 MiB of memory, 2
passes, 1 lane): about 20 ms of CPU per sign-in on the 2-core machine kind, and memory-hard, so
guessing passwords on GPUs costs an attacker far more than PBKDF2 at the same time per sign-in.
The capacity this gives is measured by `make bench-exam` and written in docs/performance.md.

Changing a parameter here is safe: Django re-hashes a password with the current parameters at
its owner's next sign-in, as it does for the older hashers listed after this one in settings.
"""

from django.contrib.auth.hashers import Argon2PasswordHasher


class ExamDayArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2id, 19 MiB, 2 passes, 1 lane (OWASP's first recommended setting)."""

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
