"""The files termsnake reads and writes (levels, replays, high scores, settings) and the text
it shows from them, made safe for a terminal."""
