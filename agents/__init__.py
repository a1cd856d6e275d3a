"""Built-in agents, installed as ``pytest_mlab.agents``."""
