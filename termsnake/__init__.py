"""termsnake: Snake in the terminal, with bots you can watch and benchmark."""

__version__ = "0.1.0"
