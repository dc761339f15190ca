"""An LTI 1.3 launch, step by step: the OIDC login (login), the checks on the id_token (verify),
then what the verified launch leads to (accept). The claim names they read are in claims."""
