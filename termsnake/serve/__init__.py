"""`termsnake serve`: the game over SSH for anyone with an ssh client (the `serve` extra)."""
