"""Where trials run: on this machine (in order, or longest first under -n), or on a Ray
cluster through a node's one-trial session, and how long each may take. It never imports
what the session reports."""
