"""ASCII as a Chinese input method's full-width mode types it (pure).

That mode types each printable ASCII character, `!` to `~`, as its full-width form,
U+FF01 to U+FF5E, one for one: `／ｎｏｔｅｓ`, `ＬｏＲＡ`. A command reads them as the ASCII
they stand for (`comment_prose`, `wrong_reading`); a note's term holding one can never
match a PR, which writes ASCII (`note_terms`). One table, so the two cannot disagree on the
range.
"""

from __future__ import annotations

# str.translate's table: full-width form's code point -> the ASCII character
FULL_WIDTH = str.maketrans({chr(0xFF01 + i): chr(0x21 + i) for i in range(94)})
