"""What the session reports: the header, the forecast, live progress, each trial's record,
the run's results.json and reports, saved runs and the gate, the attestation of its
sandbox. It never imports where trials run."""
