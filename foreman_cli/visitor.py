"""The visitor that receives a replay's events (python-chess's BaseVisitor), and one that keeps them.

Apart from the events themselves so that a view can be a visitor without loading the event
classes, which only a traced replay builds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .events import Event


class Visitor:
    """Receives a replay's events: `visit` calls `on_<kind>` (on_deal, on_pass, ...) when defined."""

    def visit(self, event: Event) -> None:
        """Hand one event to its handler."""
        handler = getattr(self, "on_" + event.kind, None)
        if handler is not None:
            handler(event)


class Recorder(Visitor):
    """A visitor that keeps every event, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def visit(self, event: Event) -> None:
        """Keep the event."""
        self.events.append(event)
