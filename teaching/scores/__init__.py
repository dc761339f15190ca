"""Score changes: overrides with reasons and regrades."""
