"""The results grid and gradebook: reads, pages, grades and the CSV export."""
