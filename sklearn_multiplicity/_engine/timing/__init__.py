"""Time: deadlines, the accounts of seconds per question, and the plans that
share a request's budget among its steps. Imports nothing else of the engine."""
