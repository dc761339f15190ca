"""Make a development certificate for serving softgrade over HTTPS on this machine.

An LMS shows softgrade in an iframe, where the launch is a cross-site POST: browsers send the
login's state cookie with it only when it is SameSite=None; Secure, so only over HTTPS. `make
run-https` runs this once, then serves with gunicorn on https://localhost. The certificate is
self-signed (the browser warns once), for localhost, 127.0.0.1 and ::1 only, and never deployed.
"""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.core.management.base import BaseCommand
from django.utils.translation import gettext as _

CERTIFICATE_FILE = "localhost.crt"
KEY_FILE = "localhost.key"
VALID_DAYS = 365


def dev_certificate_write(*, directory: Path) -> tuple[Path, Path]:
    """Write a self-signed certificate and its key for localhost into `directory` (made if
    missing) unless both are there already; returns their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    certificate_path, key_path = directory / CERTIFICATE_FILE, directory / KEY_FILE
    if certificate_path.exists() and key_path.exists():
        return certificate_path, key_path
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "softgrade development")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    x509.IPAddress(ipaddress.ip_address("::1")),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    certificate_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return certificate_path, key_path


class Command(BaseCommand):
    help = "Make a self-signed HTTPS certificate for localhost (once; kept if it exists)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--dir",
            default=".dev-certificate",
            help="Folder for localhost.crt and localhost.key (default .dev-certificate).",
        )

    def handle(self, *args, **options):
        certificate, key = dev_certificate_write(directory=Path(options["dir"]))
        self.stdout.write(
            _("Development certificate: %(certificate)s (key: %(key)s)")
            % {"certificate": certificate, "key": key}
        )
