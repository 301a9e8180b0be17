"""Length-prefixed frames: the only way bytes cross a TCP connection.

A frame is a 4-byte big-endian unsigned length followed by that many payload bytes.
Payloads above ``MAX_FRAME`` are refused before any of them is buffered, so a peer
cannot make us allocate unbounded memory. A zero-length frame is valid (the
connection layer may use it as a keepalive).

:class:`FrameDecoder` is sans-IO (bytes in, payloads out) so it is tested with plain
bytes; the transport (:mod:`p2pgin.net.transport`) feeds it from its asyncio protocol.
"""

from __future__ import annotations

import struct
from typing import ClassVar, Final

__all__ = [
    "HEADER_SIZE",
    "MAX_FRAME",
    "FrameDecoder",
    "FrameError",
    "FrameTooLarge",
    "MalformedFrame",
    "encode_frame",
]

#: Largest payload accepted or sent: 1 MiB (a whole shuffle proof fits many times over).
MAX_FRAME: Final = 1 << 20
HEADER_SIZE: Final = 4
_HEADER: Final = struct.Struct(">I")


class FrameError(ValueError):
    """Base of framing errors; ``rule`` is the stable code of the broken rule."""

    rule: ClassVar[str] = "frame"


class FrameTooLarge(FrameError):
    """A frame announced (or a caller tried to send) more than the maximum size."""

    rule = "frame_too_large"


class MalformedFrame(FrameError):
    """The stream ended inside a frame, or the decoder was used after an error."""

    rule = "malformed_frame"


def encode_frame(payload: bytes, *, max_size: int = MAX_FRAME) -> bytes:
    """Prefix ``payload`` with its length.

    Raises:
        FrameTooLarge: ``len(payload) > max_size``.
    """
    if len(payload) > max_size:
        raise FrameTooLarge(f"payload of {len(payload)} bytes exceeds {max_size}")
    return _HEADER.pack(len(payload)) + bytes(payload)


class FrameDecoder:
    """Incremental decoder: :meth:`feed` bytes as they arrive, get whole payloads back.

    After raising, the decoder stays failed (every later call raises again): the stream
    position is lost and the connection must be closed.
    """

    __slots__ = ("_buffer", "_error", "max_size")

    def __init__(self, *, max_size: int = MAX_FRAME) -> None:
        self.max_size = max_size
        self._buffer = bytearray()
        self._error: FrameError | None = None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as a frame."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Add received bytes; return every frame now complete, in order.

        Raises:
            FrameTooLarge: a header announces more than ``max_size`` bytes.
            MalformedFrame: the decoder already failed.
        """
        if self._error is not None:
            raise MalformedFrame(f"decoder failed earlier: {self._error}")
        self._buffer += data
        frames: list[bytes] = []
        buffer = self._buffer
        start = 0
        while len(buffer) - start >= HEADER_SIZE:
            (length,) = _HEADER.unpack_from(buffer, start)
            if length > self.max_size:
                self._error = FrameTooLarge(f"frame of {length} bytes exceeds {self.max_size}")
                del buffer[:]
                raise self._error
            end = start + HEADER_SIZE + length
            if len(buffer) < end:
                break
            frames.append(bytes(buffer[start + HEADER_SIZE : end]))
            start = end
        if start:
            del buffer[:start]
        return frames

    def close(self) -> None:
        """Signal end of stream.

        Raises:
            MalformedFrame: the stream ended in the middle of a frame (or failed earlier).
        """
        if self._error is not None:
            raise MalformedFrame(f"decoder failed earlier: {self._error}")
        if self._buffer:
            self._error = MalformedFrame(f"stream ended inside a frame ({self.buffered} bytes)")
            raise self._error
