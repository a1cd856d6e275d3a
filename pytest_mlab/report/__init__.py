"""The run report: a model built from results.json, rendered as one HTML file and charts."""
