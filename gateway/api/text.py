"""Request text must be Unicode that UTF-8 can carry.

JSON may spell a lone surrogate (``"\\ud800"``); Python decodes it into a ``str`` that cannot
be encoded (hashing, Redis, the chunk store, the route log all raise ``UnicodeEncodeError``).
Such text is bad input: a 400 naming the field, never a 500 or an outage.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator

from gateway.cache.normalize import empty_question, has_words

__all__ = ["NOT_UNICODE", "Utf8Str", "check_utf8", "empty_question", "has_words",
           "lone_surrogate"]

_SURROGATE = re.compile("[\ud800-\udfff]")
#: The message (pydantic's own wording for constrained strings, plus where and what to send).
NOT_UNICODE = "Input should be a valid string, unable to parse raw data as a unicode string"


def lone_surrogate(text: str) -> int | None:
    """The index of the first lone surrogate in ``text``, or None."""
    m = _SURROGATE.search(text)
    return m.start() if m else None


def check_utf8(text: str) -> str:
    """``text`` unchanged; :raises ValueError: it holds a lone surrogate (not Unicode text)."""
    at = lone_surrogate(text)
    if at is not None:
        raise ValueError(f"{NOT_UNICODE} (a lone surrogate \\u{ord(text[at]):04x} at character "
                         f"{at}); send UTF-8 text")
    return text


def _check_any(value: Any) -> Any:
    """Every string inside ``value`` (lists, dict values) checked by :func:`check_utf8`."""
    if isinstance(value, str):
        return check_utf8(value)
    if isinstance(value, dict):
        for v in value.values():
            _check_any(v)
    elif isinstance(value, list):
        for v in value:
            _check_any(v)
    return value


#: A ``str`` field that refuses lone surrogates (pydantic accepts them in a plain ``str``).
Utf8Str = Annotated[str, AfterValidator(check_utf8)]
#: Marker for any JSON value whose strings must all be Unicode text.
Utf8Json = AfterValidator(_check_any)
