"""Server-drawn charts (bar charts and histograms) shared by the instructor pages."""
