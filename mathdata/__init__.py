"""mathdata package."""
