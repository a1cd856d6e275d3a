"""Repository-wide pytest configuration.

Every ``mlab_*`` fixture can be overridden here, or in a conftest.py beside a task
suite, like any pytest fixture. The Python files inside a task (its starter, its
solution) belong to the agent, never to the test run.
"""

collect_ignore_glob = ["tasks/*/*/env/*", "tasks/*/*/solution/*"]
