"""Run the CLI as `python -m foreman_cli`."""

from .cli import main

main()
