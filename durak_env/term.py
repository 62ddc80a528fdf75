"""Terminal output: the text renderer (``render.py``) with red hearts and diamonds.

Colour (ANSI escapes) is used only when writing to a terminal, and never when the
``NO_COLOR`` environment variable is set (https://no-color.org).
"""

from __future__ import annotations

import os
import re
import sys

from .render import render_text

_RED, _BOLD, _RESET = "\x1b[31m", "\x1b[1m", "\x1b[0m"
# A card with a red suit, e.g. "10♥", "Q♦", as render.py prints them.
_RED_CARD = re.compile(r"(?<![\w])((?:10|[2-9JQKA])[♥♦])")


def use_color(stream=None) -> bool:
    """Whether to colour output written to ``stream`` (default stdout)."""
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def colorize(text: str) -> str:
    """Paint red-suited cards red and the marker of the seat to act bold."""
    text = _RED_CARD.sub(_RED + r"\1" + _RESET, text)
    return re.sub(r"(?m)^> (seat \d+)", _BOLD + r"> \1" + _RESET, text)


def render_terminal(game, seat: int | None = None, color: bool | None = None) -> str:
    """The text picture of a ``Game`` (``render.render_text``), coloured on a terminal.

    Args:
        game: a ``durak_env.Game``.
        seat: None for the referee's view, or the seat whose knowledge to show.
        color: force colour on or off; None decides by ``use_color()``.
    """
    text = render_text(game, seat)
    return colorize(text) if (use_color() if color is None else color) else text
