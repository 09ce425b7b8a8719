"""Layer 5: command graphs (recording, variable binding, submission)."""
