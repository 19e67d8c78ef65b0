"""The visitor that receives a replay's events (python-chess's BaseVisitor), and one that keeps them.

Apart from the events themselves so that a view can be a visitor without loading the event
classes, which only a traced replay builds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .events import Event


class Visitor:
    """Receives a replay's events between `begin_game` and `end_game`: `visit` calls `on_<kind>`
    (on_deal, on_pass, ...) when defined; `result()` is what the visitor made of them."""

    def begin_game(self, game: Any) -> None:
        """The replay of `game` (records.GameData) starts."""

    def visit(self, event: Event) -> None:
        """Hand one event to its handler."""
        handler = getattr(self, "on_" + event.kind, None)
        if handler is not None:
            handler(event)

    def end_game(self, result: Any) -> None:
        """The replay has ended with `result` (results.GameResult)."""

    def result(self) -> Any:
        """What the visitor made of the game."""
        return None


class Recorder(Visitor):
    """A visitor that keeps every event, in order; its result is the list of them."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def visit(self, event: Event) -> None:
        """Keep the event."""
        self.events.append(event)

    def result(self) -> list[Event]:
        """The events, in order."""
        return self.events
