"""What a session runs: the original task folders collected as items, the trials a session
selected and their ids, validation items, and the check that their LLMs have keys. It never
imports where trials run, nor what the session reports."""
