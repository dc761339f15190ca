"""`manage.py lti_dev_certificate`: a localhost certificate made once, kept afterwards."""

from __future__ import annotations

from cryptography import x509
from django.core.management import call_command


def test_the_certificate_is_made_once_for_localhost_and_kept(tmp_path, capsys):
    folder = tmp_path / "certificate"
    call_command("lti_dev_certificate", "--dir", str(folder))
    assert "Development certificate:" in capsys.readouterr().out
    certificate_pem = (folder / "localhost.crt").read_bytes()
    certificate = x509.load_pem_x509_certificate(certificate_pem)
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["localhost"]
    assert [str(a) for a in names.get_values_for_type(x509.IPAddress)] == ["127.0.0.1", "::1"]
    assert (folder / "localhost.key").stat().st_mode & 0o077 == 0
    call_command("lti_dev_certificate", "--dir", str(folder))
    assert (folder / "localhost.crt").read_bytes() == certificate_pem
