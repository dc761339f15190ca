"""Moodle XML in and out of a lesson: multiple-choice, true/false and numerical questions.

- `tree`: a safe XML parser (no DTD, so no entity can expand; limits on size and elements)
  that keeps each element's line.
- `reader`: the file's questions as plain records, each with its name, type and line.
- `files`: every file a question embeds or points at, named as what it is (an image, a PDF…).
- `html_text`: question HTML to the lesson's Markdown with `$…$` math, and back.
- `mapping`: a record to the rows it becomes, or the reason it is reported and not imported.
- `importer`: check everything, then write it all in one transaction (or nothing).
- `writer`: a lesson's questions and constant formula problems as Moodle XML.
- `placeholders`: Moodle's `{name}` and softgrade's `{@name@}`, mapped both ways.

The mapping is documented in docs/moodle-xml.md.
"""
