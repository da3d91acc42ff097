"""Archive safety: refuse ZIP-based files (DOCX) that would inflate beyond a limit.

The check reads only the ZIP central directory (declared sizes), before anything is inflated
(case 20, zip bombs). Because declared sizes can lie, :func:`read_member_capped` also inflates
through a capped stream and stops after the limit.

Limits (sources: OWASP "File Upload Cheat Sheet" on decompression bombs; the case's expectation):
:data:`MAX_TOTAL_UNCOMPRESSED` = 50 MB declared in total; :data:`MAX_RATIO` = 100 per entry
(entries smaller than 1 MB inflated are exempt from the ratio test, since tiny XML parts
legitimately compress 100x+).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from corpus.errors import ParseError

__all__ = ["MAX_RATIO", "MAX_TOTAL_UNCOMPRESSED", "check_zip", "read_member_capped"]

MAX_TOTAL_UNCOMPRESSED = 50 * 1024 * 1024
MAX_RATIO = 100
_RATIO_EXEMPT_BELOW = 1024 * 1024


def check_zip(data: bytes, path: Path) -> zipfile.ZipFile:
    """Open ``data`` as a ZIP archive after checking its central directory.

    :returns: the open :class:`zipfile.ZipFile` (nothing inflated yet).
    :raises ParseError: ``corrupt_archive`` when it starts like a ZIP archive but cannot be read
        (truncated, no central directory), ``corrupt`` when it is no ZIP archive at all,
        ``decompression_limit`` when
        the declared total exceeds :data:`MAX_TOTAL_UNCOMPRESSED` or one entry's ratio exceeds
        :data:`MAX_RATIO`.
    """
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        if data.startswith(b"PK"):
            raise ParseError(
                "corrupt_archive",
                f"{path}: damaged or truncated ZIP/Office archive, nothing indexed ({exc})",
            ) from exc
        raise ParseError("corrupt", f"{path}: not a valid ZIP/Office file ({exc})") from exc
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size >= _RATIO_EXEMPT_BELOW:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > MAX_RATIO:
                zf.close()
                raise ParseError(
                    "decompression_limit",
                    f"{path}: entry {info.filename!r} would inflate {ratio:.0f}x "
                    f"({info.file_size:,} bytes from {info.compress_size:,}); limit {MAX_RATIO}x",
                )
    if total > MAX_TOTAL_UNCOMPRESSED:
        zf.close()
        raise ParseError(
            "decompression_limit",
            f"{path}: archive declares {total:,} bytes uncompressed; limit "
            f"{MAX_TOTAL_UNCOMPRESSED:,}",
        )
    return zf


def read_member_capped(zf: zipfile.ZipFile, name: str, path: Path, limit: int) -> bytes:
    """Inflate one member; ``decompression_limit`` once more than ``limit`` bytes come out,
    ``corrupt_archive`` when the member is damaged (bad CRC, cut short)."""
    out = bytearray()
    try:
        with zf.open(name) as fh:
            while True:
                piece = fh.read(1 << 16)
                if not piece:
                    break
                out += piece
                if len(out) > limit:
                    raise ParseError(
                        "decompression_limit",
                        f"{path}: {name!r} inflates beyond {limit:,} bytes (declared sizes lied)",
                    )
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ParseError(
            "corrupt_archive", f"{path}: damaged archive member {name!r} ({exc})"
        ) from exc
    return bytes(out)
