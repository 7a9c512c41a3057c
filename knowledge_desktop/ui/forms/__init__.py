"""Forms for writing records: Correct… and File › New… edit fields, not raw YAML.

`draft.py` turns a record file into the values a form shows and back (no
widgets); `page_picker.py` chooses pages by title; `evidence_rows.py` edits
evidence; `record_form.py` is the dialog with its Form and Advanced (YAML)
tabs; `new_records.py` is File › New… and its review step.
"""
