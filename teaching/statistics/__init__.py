"""Quiz statistics: figures, per-pool reports, response analysis, their reads, views and CSV
export."""
