"""Options and settings: the command line, ini keys and environment variables a session
is configured by, declared once and resolved into ``Settings``. It imports no other room
of the plugin."""
