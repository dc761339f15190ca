# softgrade's application image: gunicorn serving the app under production settings.
# The same image runs the task worker (`python manage.py db_worker`) and the one-off commands
# (migrate, import_bank, the LTI sweeps); compose.yaml shows the whole set (docs/deploy.md).
FROM python:3.13-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production

WORKDIR /app
COPY . /app
# Editable, so settings find templates/ and static/ beside the code, as in a checkout.
RUN pip install -e . \
    && useradd --system --home-dir /app --no-create-home softgrade

# Static files are collected at build time into the image (whitenoise serves them). Production
# settings refuse to start without a secret key and a host; collectstatic signs nothing, so a
# placeholder that is never used at run time lets it run.
RUN SECRET_KEY=collectstatic-only-placeholder-never-used-to-sign-anything-0123456789 \
    ALLOWED_HOSTS=build.invalid \
    python manage.py collectstatic --noinput

USER softgrade
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "4", "--backlog", "4096"]
