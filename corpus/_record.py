"""The JSON-safe form shared by the dataclass records LoopGate stores or writes (directory
entries, document profiles, eval locations): :func:`dataclasses.asdict` with the tuple fields
as JSON lists."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any, ClassVar, cast

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["ListFieldsRecord"]


class ListFieldsRecord:
    """Mixin of a dataclass whose tuple fields, named in ``list_fields``, are written as lists.

    Usage example::

        @dataclass(frozen=True, slots=True)
        class Entry(ListFieldsRecord):
            list_fields = ("terms",)
            terms: tuple[str, ...] = ()

        Entry(("a", "b")).to_data() == {"terms": ["a", "b"]}
    """

    __slots__ = ()
    #: names of the tuple fields that :meth:`to_data` writes as lists
    list_fields: ClassVar[tuple[str, ...]] = ()

    def to_data(self) -> dict[str, Any]:
        """JSON-safe form: field name → value (:func:`dataclasses.asdict`, each of
        ``list_fields`` as a list). Raises :class:`TypeError` when the class is no dataclass."""
        data = asdict(cast("DataclassInstance", self))
        for name in self.list_fields:
            data[name] = list(getattr(self, name))
        return data
