"""The files a Moodle question refers to, each named as what it is.

A question that shows or links a file is left out (the file is not imported, and without it the
question asks something else), so every way a Moodle XML file can carry or point at one must be
found, wherever in the question it sits:

- embedded `<file name="…" encoding="base64">` elements (under any text, hint or feedback);
- `@@PLUGINFILE@@/…` addresses in any text, whatever its format (an `<img src>`, an `<a href>`,
  an `<audio>`/`<video>` `<source>`, an `<object data>` or `<embed src>`);
- the old `<image>` and `<image_base64>` elements of a question.

A file is named by its extension, then by its MIME type, then by the element that shows it:
"an image", "an audio file", "a video", "a PDF", or else "a file".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .tree import Node

PLUGINFILE = "@@PLUGINFILE@@/"
# Up to whatever ends an address inside HTML or text: a quote, a bracket, a space, a query.
_PLUGINFILE_URL = re.compile(r"@@PLUGINFILE@@/([^\"'<>\s)?#]+)")

IMAGE, AUDIO, VIDEO, PDF, OTHER = "an image", "an audio file", "a video", "a PDF", "a file"
_BY_EXTENSION = {
    **dict.fromkeys(("png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "tif", "tiff"), IMAGE),
    **dict.fromkeys(("mp3", "wav", "ogg", "oga", "m4a", "aac", "flac", "opus"), AUDIO),
    **dict.fromkeys(("mp4", "webm", "ogv", "mov", "avi", "mkv", "m4v", "mpg", "mpeg"), VIDEO),
    "pdf": PDF,
}
_BY_MIME_TYPE = {"image": IMAGE, "audio": AUDIO, "video": VIDEO}
# The element that shows a file says what it is when its name does not.
_BY_ELEMENT = {"img": IMAGE, "image": IMAGE, "audio": AUDIO, "video": VIDEO}
# How a message names each kind, in the page's language.
_KIND_LABELS = {
    IMAGE: gettext_lazy("an image"),
    AUDIO: gettext_lazy("an audio file"),
    VIDEO: gettext_lazy("a video"),
    PDF: gettext_lazy("a PDF"),
    OTHER: gettext_lazy("a file"),
}


@dataclass(frozen=True)
class FileRef:
    name: str
    kind: str

    def __str__(self) -> str:
        kind = _KIND_LABELS.get(self.kind, self.kind)
        return _("%(kind)s (%(name)s)") % {"kind": kind, "name": self.name}


def kind_of(name: str, *, mime_type: str = "", element: str = "") -> str:
    """What a file is: `kind_of("clip.mp3")` is "an audio file"."""
    try:
        path = urlsplit(name).path if "://" in name else name
    except ValueError:  # not an address after all ("http://[x.png"): the name is all there is
        path = name
    extension = PurePosixPath(path).suffix
    if extension.lower().lstrip(".") in _BY_EXTENSION:
        return _BY_EXTENSION[extension.lower().lstrip(".")]
    mime_type = mime_type.lower()
    if mime_type == "application/pdf":
        return PDF
    if mime_type.split("/")[0] in _BY_MIME_TYPE:
        return _BY_MIME_TYPE[mime_type.split("/")[0]]
    return _BY_ELEMENT.get(element, OTHER)


def file_ref(address: str, *, element: str = "") -> FileRef:
    """A file shown or linked in a text: its Moodle address (`@@PLUGINFILE@@/a%20b.png`, named
    "a b.png"), a `data:` address (named by its MIME type) or a web address (named as it is)."""
    if address.startswith("data:"):
        mime_type = address[5:].split(";")[0].split(",")[0]
        name = _("embedded %(type)s") % {"type": mime_type or "data"}
        return FileRef(name, kind_of("", mime_type=mime_type))
    name = unquote(address.removeprefix(PLUGINFILE)) if address.startswith(PLUGINFILE) else address
    return FileRef(name, kind_of(name, element=element))


def question_files(question: Node) -> list[FileRef]:
    """Every file the `<question>` element embeds or points at, in the file's order."""
    found: list[FileRef] = []
    image = question.find("image")
    # The old format names the image in <image> and carries it in <image_base64>: one file.
    named_image = image is not None and bool(image.text.strip())
    for node in question.walk():
        if node.tag == "file":
            name = node.attrs.get("name") or _("an unnamed file")
            found.append(FileRef(name, kind_of(name, mime_type=node.attrs.get("mimetype", ""))))
        elif node.tag == "image" and node.text.strip():
            found.append(FileRef(node.text.strip(), kind_of(node.text.strip(), element="image")))
        elif node.tag == "image_base64" and node.text.strip() and not named_image:
            found.append(FileRef("<image_base64>", IMAGE))
        # Text and attribute values both: HTML written as XML elements keeps its `src` there.
        for match in _PLUGINFILE_URL.finditer(" ".join([node.text, *node.attrs.values()])):
            found.append(file_ref(PLUGINFILE + match.group(1)))
    return found


def describe(files: list[FileRef]) -> str:
    """The files, each once, by kind and name: "an image (a.png), a PDF (notes.pdf)".

    A file found twice (embedded, and shown by an `<audio>` element) is named by the more
    telling of the two kinds."""
    kinds: dict[str, str] = {}
    for ref in files:
        if kinds.get(ref.name, OTHER) == OTHER:
            kinds[ref.name] = ref.kind
    return ", ".join(str(FileRef(name, kind)) for name, kind in kinds.items())
