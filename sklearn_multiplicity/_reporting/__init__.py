"""What the estimators say: DataFrames of results, the group-wise frame,
Displays, scorers, progress bars and the sentences of their warnings, one
source for the API and the command line's reports."""
