"""The command line: one argparse tree (``cli``) and a module per subcommand, each imported
only when its command runs."""
