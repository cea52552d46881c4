"""The model: points and directions, the board, levels, the rules of a game, its move codec
and its speeds. Pure and seeded: nothing here touches a terminal or imports blessed."""
