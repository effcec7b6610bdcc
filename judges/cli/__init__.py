"""The command line: the typer app, its command modules, the consoles and the summary."""
