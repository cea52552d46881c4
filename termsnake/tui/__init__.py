"""The game in a terminal: a session on any injected terminal, its controllers and key maps,
the pure view and the screen writer, and this process's own terminal."""
