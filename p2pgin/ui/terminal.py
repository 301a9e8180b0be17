"""Whether the full-screen console can run here: a terminal to read keys from.

Kept apart from the console's modules (and free of prompt_toolkit until needed) so the
command line can ask before it loads anything heavy or starts a bot peer.
"""

from __future__ import annotations

import sys

__all__ = ["keys_come_from_a_terminal"]


def keys_come_from_a_terminal() -> bool:
    """Whether a full-screen app here can read keys: stdin is a terminal (or a test gave
    the app session a pipe). ``p2pgin play < /dev/null`` has neither; prompt_toolkit
    would then fail deep inside with ``EOFError``."""
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            return True
    except (OSError, ValueError):  # closed or detached
        pass
    from prompt_toolkit.application.current import get_app_session
    from prompt_toolkit.input import PipeInput

    # NB: the session's own ``input`` property would build a default input on stdin
    # (printing a warning); only an input given to the session counts here.
    return isinstance(getattr(get_app_session(), "_input", None), PipeInput)
