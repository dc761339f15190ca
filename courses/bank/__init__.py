"""Lesson banks: one human-editable YAML file per lesson, imported and exported as a whole.

- `schema`: the format, declared once: every entity as a list of field specs.
- `validate`: a parsed bank in, a normalised bank or every located issue out (`issues`).
- `rules`: what a question's choices, a quiz's policy and a problem must satisfy.
- `importer`: read files, validate them all, write them in one transaction.
- `exporter`: a lesson back to bank YAML, field by field from the same schema.

The format is documented in docs/bank-format.md.
"""
