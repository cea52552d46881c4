"""The headless benchmark: many seeded games per solver and board (`termsnake bench`)."""
