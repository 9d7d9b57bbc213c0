"""Training-data objects: the validated columns, weights and class totals an
estimator fits on, with the summaries (PAV blocks, solver data) computed once
and shared by every method that needs them."""
