"""The admin's start page for instructors: their courses with their /teach/ pages, buttons to
add content, and their recent imports (reads.py; shown by templates/admin/softgrade_index.html
above the admin's own list of models)."""
